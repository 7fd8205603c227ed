// The JSON-lines end of the pipeline protocol (docs/protocol.md) for narrow.js; no dependencies.
'use strict';
const readline = require('node:readline');
const { oldBody, newBody } = require('./narrow.js');

const pipelines = { old: oldBody, new: newBody };
const out = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
out({ type: 'hello', protocol: 1, pipelines: Object.keys(pipelines).sort(),
  implementation: { name: 'narrow-node', version: '1.0.0', language: `node ${process.version}` } });
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === 'shutdown') process.exit(0);
  try {
    out({ type: 'result', id: msg.id, output: pipelines[msg.pipeline](msg.input, msg.lane) });
  } catch (err) {
    out({ type: 'error', id: msg.id, error: { type: err.name, message: String(err.message), where: '' } });
  }
});
