// reasons.js: reasons as codes with parameters (schema/SPEC.md 8.8), rendered from one table.
//
// A reason is {code, params}; its English text is the code's template (reason_templates.js,
// generated from twenty48_replay/core/reasons.py) filled in, exactly the words `twenty48 verify`
// prints.  A person reads it through a translation table: the page's catalog, built from the
// same .po file as the command line's (twenty48_replay/web/messages.py), keyed by the English
// template.  A parameter may itself be a reason (rendered, and translated, first).
//
// API:
//   reason(code, params = {}) -> a frozen {code, params}
//   reasonText(reason, translate = null) -> its text; translate(englishTemplate) -> template
//   reasonJson(reason) -> {code, params} with nested reasons as plain objects (as --json prints)
//   inField(field, problem) -> problem placed in a field ("field 'score': ..."), or itself when
//       field is null
//   translator(catalog) -> translate function of a {english: translation} object (or null)
//   reasonTemplates(table) -> add the templates of more codes ({code: English template})

import { REASON_TEMPLATES } from "./reason_templates.js";
import { pyFloatRepr, pyRepr } from "./text.js";

const REASON_FIELD = /\{([a-z0-9_]+)(?:!([rj]))?(:,)?\}/g;
// The templates of the codes given: the verifier's, and more a module adds (play_witness.js).
const REASON_TABLE = new Map(Object.entries(REASON_TEMPLATES));

export function reasonTemplates(table) {
  for (const [code, template] of Object.entries(table)) REASON_TABLE.set(code, template);
}

export function reason(code, params = {}) {
  return Object.freeze({ code, params: Object.freeze({ ...params }) });
}

function reasonIs(value) {
  return value !== null && typeof value === "object" && typeof value.code === "string";
}

function reasonPlain(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return String(value);
}

export function reasonText(r, translate = null) {
  const template = r.template || REASON_TABLE.get(r.code);
  if (template === undefined) return reasonPlain(r.params.text);
  const words = translate === null ? template : translate(template);
  return words.replace(REASON_FIELD, (_match, name, conversion, grouped) => {
    let value = r.params[name];
    if (reasonIs(value)) value = reasonText(value, translate);
    if (conversion === "r") {
      // Only floats are shown with !r besides strings (value.fraction, canonical.fraction).
      if (typeof value === "number") return pyFloatRepr(value);
      return typeof value === "string" ? pyRepr(value) : reasonPlain(value);
    }
    if (conversion === "j") return JSON.stringify(value);
    if (grouped) return reasonPlain(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return reasonPlain(value);
  });
}

export function inField(field, problem) {
  return field === null || field === undefined ? problem : reason("field", { field, problem });
}

export function reasonJson(r) {
  const params = {};
  for (const [name, value] of Object.entries(r.params)) params[name] = reasonIs(value) ? reasonJson(value) : value;
  return { code: r.code, params };
}

export function translator(catalog) {
  if (catalog === null || typeof catalog !== "object") return null;
  return (english) => (Object.prototype.hasOwnProperty.call(catalog, english) && typeof catalog[english] === "string" ? catalog[english] : english);
}
