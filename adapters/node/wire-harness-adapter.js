// The Node end of wire-harness's JSON-lines pipeline protocol, version 1 (docs/protocol.md).
// Plain JavaScript, no dependencies: copy this file next to your code, or require it by path.
//
//   const { serve } = require('./wire-harness-adapter.js');
//   serve({ name: 'my-client', version: '1.2.0', pipelines: { old: buildOld, new: buildNew } });
//
// A pipeline is a function (input, lane) -> JSON value, or a promise of one. Calls are answered
// one at a time, in order. stdout belongs to the protocol from the first line on: console.log
// and anything else writing to process.stdout is sent to stderr instead, so a library's banner
// can never corrupt an answer.
'use strict';

const path = require('path');
const readline = require('readline');

const PROTOCOL_VERSION = 1;
const MESSAGE_LIMIT = 2000;

function takeStdout() {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  return (message) => write(JSON.stringify(message) + '\n');
}

// "file.js:12 in fn" from the first frame of a stack: the file's name only, never a full path.
function whereOf(err) {
  const frames = String((err && err.stack) || '').split('\n').filter((l) => /^\s+at /.test(l));
  const match = frames.length ? /at (?:(\S+) \()?(.*?):(\d+):\d+\)?$/.exec(frames[0]) : null;
  if (!match) return '';
  return `${path.basename(match[2])}:${match[3]}` + (match[1] ? ` in ${match[1]}` : '');
}

function errorAnswer(id, type, message, where) {
  return { type: 'error', id, error: { type, message: String(message).slice(0, MESSAGE_LIMIT), where: where || '' } };
}

// JSON.stringify turns NaN into null and drops undefined: an output the wire cannot carry
// faithfully is the pipeline's error, as it is in the other adapters.
function strictJSON(key, value) {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${value} is not JSON (at ${key || 'the root'})`);
  return value;
}

async function answer(request, pipelines) {
  const id = request && Number.isInteger(request.id) ? request.id : null;
  if (request === null || typeof request !== 'object' || Array.isArray(request) || request.type !== 'call') {
    return errorAnswer(id, 'BadRequest', `expected a call or shutdown message, found ${JSON.stringify(request).slice(0, 200)}`);
  }
  if (id === null) return errorAnswer(null, 'BadRequest', `a call needs an integer id, found ${JSON.stringify(request.id)}`);
  const fn = Object.prototype.hasOwnProperty.call(pipelines, request.pipeline) ? pipelines[request.pipeline] : null;
  if (typeof fn !== 'function') {
    return errorAnswer(id, 'UnknownPipeline', `no pipeline ${JSON.stringify(request.pipeline)}; this program serves ${Object.keys(pipelines).sort().join(', ')}`);
  }
  let output;
  try {
    output = await fn(request.input, request.lane);
  } catch (err) {
    return errorAnswer(id, (err && err.name) || 'Error', (err && err.message) || String(err), whereOf(err));
  }
  if (output === undefined) return errorAnswer(id, 'OutputNotJSON', 'the pipeline returned undefined');
  try {
    JSON.stringify(output, strictJSON);
  } catch (err) {
    return errorAnswer(id, 'OutputNotJSON', err.message);
  }
  return { type: 'result', id, output };
}

function serve({ name, version = '', pipelines }) {
  if (!pipelines || !Object.keys(pipelines).length) throw new TypeError('serve() needs at least one pipeline, e.g. { new: buildBody }');
  const send = takeStdout();
  send({
    type: 'hello', protocol: PROTOCOL_VERSION, pipelines: Object.keys(pipelines).sort(),
    implementation: { name: name || 'node', version: String(version), language: `node ${process.versions.node}` },
  });
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  return (async () => {
    for await (const raw of lines) {
      if (!raw.trim()) continue;
      let request;
      try {
        request = JSON.parse(raw);
      } catch (err) {
        send(errorAnswer(null, 'BadRequest', `a line that is not JSON: ${err.message}`));
        continue;
      }
      if (request && request.type === 'shutdown') break;
      send(await answer(request, pipelines));
    }
    lines.close();
    process.stdin.destroy(); // nothing left to read: let the process end with status 0
  })();
}

module.exports = { PROTOCOL_VERSION, serve };
