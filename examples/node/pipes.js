// The example's two pipelines, served over the JSON-lines protocol: `node pipes.js`.
//   old  flattens every tool's input_schema on every Messages lane
//   new  narrows on the first-party lane, ships input_schema verbatim everywhere else
'use strict';

const { serve } = require('../../adapters/node/wire-harness-adapter.js');
const { firstParty, flatten, narrow, withNote } = require('./passes.js');

function body(input, lane, tools) {
  const out = { model: lane.model || 'claude-sonnet-4-5', max_tokens: 1024 };
  if (input.system) out.system = input.system;
  out.messages = [{ role: 'user', content: 'Use the tools you need.' }];
  out.tools = tools;
  return out;
}

function entry(tool, description, schema) {
  return { name: tool.name, description, input_schema: schema };
}

function buildOld(input, lane) {
  const tools = input.tools.map((tool) => {
    const [schema, note] = flatten(structuredClone(tool.input_schema));
    return entry(tool, withNote(tool.description || '', note), schema);
  });
  return body(input, lane, tools);
}

function buildNew(input, lane) {
  const gate = firstParty(lane);
  const tools = input.tools.map((tool) => {
    const declared = structuredClone(tool.input_schema);
    if (!gate) return entry(tool, tool.description || '', declared);
    const [schema, note] = narrow(declared);
    return entry(tool, withNote(tool.description || '', note), schema);
  });
  return body(input, lane, tools);
}

serve({ name: 'node-example', version: '1.0.0', pipelines: { old: buildOld, new: buildNew } });
