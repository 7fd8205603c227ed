// Seed 001's change, in JavaScript: the Anthropic Messages tools[].input_schema passes.
//
//   flatten  the old line, on every lane: a Responses-style root flatten (merge branch
//            properties, force type object, strip root oneOf/anyOf/allOf/enum/not)
//   narrow   the new line, on the first-party lane only: strip exactly the recorded root
//            keywords (oneOf/anyOf/allOf), merge their properties, keep everything else,
//            restore the object type a stripped composition leaves missing
//   firstParty  the gate: provider identity anthropic, or a base URL on api.anthropic.com
//
// One decision a line, so the ledger's find/replace mutants are one-line changes.
'use strict';

const COMPOSITIONS = ['oneOf', 'anyOf', 'allOf'];
const FIRST_PARTY_HOST = 'api.anthropic.com';

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// "`a` + `b`" for one branch's required names (sorted, unique), or null.
function groupLabel(branch) {
  if (!isObject(branch) || !Array.isArray(branch.required)) return null;
  const names = [...new Set(branch.required.filter((n) => typeof n === 'string'))].sort();
  return names.length ? names.map((n) => `\`${n}\``).join(' + ') : null;
}

// The dropped exactly-one / at-least-one / all constraint, in words, or null.
function constraintNote(schema) {
  if (!isObject(schema)) return null;
  const prefixes = { oneOf: 'Exactly one', anyOf: 'At least one', allOf: 'All' };
  for (const keyword of COMPOSITIONS) {
    if (!Array.isArray(schema[keyword])) continue;
    const groups = [...new Set(schema[keyword].map(groupLabel).filter(Boolean))].sort();
    if (groups.length >= 2) return `${prefixes[keyword]} of these parameter groups must be provided: ${groups.join(' | ')}.`;
  }
  return null;
}

function genericNote(keyword) {
  const shapes = { oneOf: 'exactly one of several alternative shapes', anyOf: 'at least one of several alternative shapes' };
  return shapes[keyword]
    ? `The arguments must match ${shapes[keyword]}, which this schema does not spell out.`
    : 'The arguments must also satisfy further combined constraints, which this schema does not spell out.';
}

function withNote(description, note) {
  if (!note) return description;
  return description ? `${description}\n\n${note}` : note;
}

// Branch properties copied into the root: the first branch to declare a name wins, the root wins over all.
function mergeBranchProperties(schema) {
  const merged = {};
  for (const keyword of COMPOSITIONS) {
    if (!Array.isArray(schema[keyword])) continue;
    for (const branch of schema[keyword]) {
      if (!isObject(branch) || !isObject(branch.properties)) continue;
      for (const [name, sub] of Object.entries(branch.properties)) if (!(name in merged)) merged[name] = structuredClone(sub);
    }
  }
  if (!Object.keys(merged).length) return;
  if (!isObject(schema.properties)) schema.properties = {};
  for (const [name, sub] of Object.entries(merged)) if (!(name in schema.properties)) schema.properties[name] = sub;
}

function pruneDanglingRequired(schema) {
  if (!Array.isArray(schema.required)) return;
  const declared = isObject(schema.properties) ? schema.properties : {};
  schema.required = schema.required.filter((name) => name in declared);
}

function flatten(schema) {
  const note = constraintNote(schema);
  if (!isObject(schema)) schema = {};
  mergeBranchProperties(schema);
  schema.type = 'object';
  for (const keyword of [...COMPOSITIONS, 'enum', 'not']) delete schema[keyword];
  if (!isObject(schema.properties)) schema.properties = {};
  pruneDanglingRequired(schema);
  return [schema, note];
}

function narrow(schema) {
  let note = constraintNote(schema);
  if (!isObject(schema)) schema = {};
  const stripped = COMPOSITIONS.find((keyword) => keyword in schema) || null;
  mergeBranchProperties(schema);
  for (const keyword of COMPOSITIONS) delete schema[keyword];
  const mergedProperties = isObject(schema.properties) && Object.keys(schema.properties).length > 0;
  if (stripped !== null && !('type' in schema)) schema.type = 'object';
  pruneDanglingRequired(schema);
  if (note === null && stripped !== null && !mergedProperties) note = genericNote(stripped);
  return [schema, note];
}

function firstPartyEndpoint(baseUrl) {
  if (typeof baseUrl !== 'string') return false;
  let host;
  try {
    host = new URL(baseUrl.trim().startsWith('//') ? `https:${baseUrl.trim()}` : baseUrl.trim()).hostname;
  } catch (err) {
    return false;
  }
  return host.toLowerCase().replace(/\.$/, '') === FIRST_PARTY_HOST;
}

function firstParty(lane) {
  const byIdentity = lane.provider === 'anthropic';
  const byEndpoint = firstPartyEndpoint(lane.base_url);
  return byIdentity || byEndpoint;
}

module.exports = { constraintNote, firstParty, firstPartyEndpoint, flatten, genericNote, narrow, withNote };
