"""Verifying records at scale: many files, in parallel, or on a Dask cluster.

``sources`` reads records from files, directories, URLs and standard input
(bounded); ``batch`` verifies them in worker processes, in input order;
``cluster`` hands the same work to a Dask cluster.
"""
