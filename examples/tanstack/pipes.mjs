// Published @tanstack/ai + @tanstack/openai-base as a pipeline: `node pipes.mjs old|new` serves
// the releases installed in ./old or ./new (npm ci there). The real adapter builds the request
// and reads a canned stream; the real engine's ToolCallManager parses, checks and runs the tool.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const side = process.argv[2];
const here = join(fileURLToPath(new URL('.', import.meta.url)), side, 'node_modules', '@tanstack');
const load = (pkg) => import(pathToFileURL(join(here, pkg, 'dist', 'esm', 'index.js')).href);
const [{ ToolCallManager, convertSchemaToJsonSchema }, { OpenAIBaseChatCompletionsTextAdapter }] = await Promise.all([load('ai'), load('openai-base')]);
const { z } = await import(pathToFileURL(join(here, '..', 'zod', 'index.js')).href);
const { serve } = createRequire(import.meta.url)('../../adapters/node/wire-harness-adapter.js');
const quiet = new Proxy({}, { get: () => () => {} }); // the library's logger, silenced

async function* stream({ name, arguments: args }) { // what OpenAI streams for one strict tool call
  const chunk = (delta, finish = null) => ({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] });
  yield chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: args } }] });
  yield chunk({}, 'tool_calls');
}

async function pipeline(input) {
  const call = input.call ?? { name: input.tools[0].name, arguments: '{}' };
  let sent, received;
  const client = { chat: { completions: { create: async (body) => { sent = body; return stream(call); } } } };
  const adapter = new OpenAIBaseChatCompletionsTextAdapter('gpt-4o', 'openai', client);
  // zod: the tool is declared with a Zod schema (made from the case's JSON Schema); the engine
  // hands the adapter its JSON Schema form and checks the call's input against the Zod one
  const schema = (t) => (input.zod ? z.fromJSONSchema(t.input_schema) : t.input_schema);
  const tools = input.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: schema(t),
    execute: async (args) => { received = args; return 'done'; } }));
  const manager = new ToolCallManager(tools);
  const wire = tools.map((t) => ({ ...t, inputSchema: convertSchemaToJsonSchema(t.inputSchema) }));
  const options = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Book it.' }], tools: wire, logger: quiet };
  for await (const event of adapter.chatStream(options)) {
    if (event.type === 'RUN_ERROR') throw new Error(event.message ?? event.error?.message ?? 'RUN_ERROR');
    if (event.type === 'TOOL_CALL_START') manager.addToolCallStartEvent(event);
    if (event.type === 'TOOL_CALL_ARGS') manager.addToolCallArgsEvent(event);
    // live: the engine stores the adapter's finished input; resume: only the arguments string history kept
    if (event.type === 'TOOL_CALL_END' && input.mode === 'live') manager.completeToolCall(event);
  }
  const { messages, stream_options, ...body } = sent; // the request minus the conversation
  if (input.mode !== 'live' && input.mode !== 'resume') return body;
  const run = manager.executeTools({ type: 'RUN_FINISHED', runId: 'r', threadId: 't', finishReason: 'tool_calls' });
  let step = await run.next();
  while (!step.done) step = await run.next();
  if (received !== undefined) return { tool_received: received };
  const content = step.value.find((m) => m.role === 'tool').content; // the refusal the model is sent
  try { return { error: JSON.parse(content).error ?? content }; } catch { return { error: content }; }
}

serve({ name: `tanstack-${side}`, version: side, pipelines: { [side]: pipeline } });
