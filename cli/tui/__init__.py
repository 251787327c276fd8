"""The full-screen terminal UI of ``twenty48 play`` (Textual).

Imported only when the game UI starts, so the other commands never pay
for loading Textual.
"""
