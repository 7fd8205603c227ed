// The pipelines: the new one closes a root object schema on the first-party lane only.
'use strict';

function oldBody(input, lane) {
  return { model: lane.model, tools: input.tools };
}

function newBody(input, lane) {
  const tools = input.tools.map((tool) => {
    const schema = tool.input_schema;
    if (schema.type === 'object' && lane.provider === 'first') {
      return { ...tool, input_schema: { ...schema, additionalProperties: false } };
    }
    return tool;
  });
  return { model: lane.model, tools };
}

module.exports = { oldBody, newBody };
