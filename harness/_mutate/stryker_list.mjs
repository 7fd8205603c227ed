// List the operator mutants Stryker's own instrumenter makes for JS/TS files, as JSON on stdout.
//
//   node stryker_list.mjs FILE...    (run in the project folder; paths relative to it)
//
// The package is resolved from the working folder (its node_modules), so the project decides
// which @stryker-mutator/instrumenter it installs. Each mutant: the file, Stryker's mutator
// name, its 1-based start/end line and 0-based column, the original text and the replacement.
// Nothing is written: the harness applies each replacement to a scratch copy itself.
//
// A mutant must run the code it names. Stryker replaces a syntax-tree node; the harness splices
// text, and text spliced into `a && b && c` for the node `a && b` reads `a || b && c`, which
// parses as `a || (b && c)`. So every mutant is spliced here first and the result re-parsed with
// the instrumenter's own parser (@babel/parser): its tree must be the original file's tree with
// that one node replaced by the replacement's tree. When the bare text does not give that tree,
// the replacement is parenthesised; when neither does, the listing fails naming the mutant.
// Each mutant says which held: "tree": "same" or "parenthesized".
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const quiet = { isTraceEnabled: () => false, isDebugEnabled: () => false, isInfoEnabled: () => false,
  isWarnEnabled: () => false, isErrorEnabled: () => false, isFatalEnabled: () => false,
  trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

async function main(files) {
  const require = createRequire(resolve(process.cwd(), 'package.json'));
  let entry;
  try {
    entry = require.resolve('@stryker-mutator/instrumenter');
  } catch {
    process.stderr.write('@stryker-mutator/instrumenter is not installed in ' + process.cwd() + '\n');
    process.exit(3);
  }
  const { Instrumenter } = await import(pathToFileURL(entry).href);
  const fromInstrumenter = createRequire(entry);
  const babel = fromInstrumenter('@babel/parser');
  const types = fromInstrumenter('@babel/types');
  const inputs = files.map((name) => ({ name, content: readFileSync(name, 'utf8'), mutate: true }));
  const result = await new Instrumenter(quiet).instrument(inputs, {
    plugins: null, excludedMutations: [], ignorers: [], noHeader: true,
  });
  const texts = new Map(inputs.map((f) => [resolve(f.name), f.content]));
  const out = [];
  for (const m of result.mutants) {
    if (m.status === 'Ignored') continue; // a `// Stryker disable` comment in the source
    const text = texts.get(resolve(m.fileName)) ?? '';
    const lines = text.split('\n');
    // Stryker's locations: 0-based lines and columns; offsets are what the harness applies
    const offset = (p) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.column;
    const start = offset(m.location.start);
    const end = offset(m.location.end);
    const file = files.find((f) => resolve(f) === resolve(m.fileName)) ?? m.fileName;
    const spliced = splice(babel, types, file, text, start, end, m.replacement);
    if (spliced.error) {
      process.stderr.write(`${file}:${m.location.start.line + 1}:${m.location.start.column + 1}: ` +
        `${m.mutatorName} mutant ${JSON.stringify(text.slice(start, end))} -> ` +
        `${JSON.stringify(m.replacement)}: ${spliced.error}\n`);
      process.exit(4);
    }
    out.push({
      file, mutator: m.mutatorName, line: m.location.start.line + 1, column: m.location.start.column + 1,
      end_line: m.location.end.line + 1, end_column: m.location.end.column + 1,
      start, end, original: text.slice(start, end), replacement: spliced.replacement, tree: spliced.tree,
    });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

// -- the re-parse check -------------------------------------------------------------------

function pluginsFor(name) {
  if (/\.(ts|mts|cts)$/.test(name)) return ['typescript', 'decorators-legacy'];
  if (/\.tsx$/.test(name)) return ['typescript', 'jsx', 'decorators-legacy'];
  return ['jsx', 'decorators-legacy'];
}

function parseFile(babel, name, text) {
  return babel.parse(text, { sourceType: 'unambiguous', plugins: pluginsFor(name), allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true, allowImportExportEverywhere: true, allowUndeclaredExports: true });
}

// the replacement's own tree, parsed as the kind of node it replaces; null when it is not one
function parseReplacement(babel, name, code, expression) {
  try {
    if (expression) return babel.parseExpression(code, { plugins: pluginsFor(name) });
    const body = parseFile(babel, name, code).program.body;
    return body.length === 1 ? body[0] : null;
  } catch {
    return null;
  }
}

const POSITIONS = new Set(['start', 'end', 'loc', 'range', 'extra', 'leadingComments', 'trailingComments',
  'innerComments', 'comments', 'tokens', 'errors']);

// a node as plain data without places, comments and parentheses (extra.parenthesized)
function bare(value) {
  if (Array.isArray(value)) return value.map(bare);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const key of Object.keys(value).sort()) if (!POSITIONS.has(key)) out[key] = bare(value[key]);
  return out;
}

// every node spanning exactly [start, end], outermost first, with its path (keys from the root)
function spanning(root, start, end) {
  const found = [];
  const queue = [[root, []]];
  while (queue.length) {
    const [node, path] = queue.shift();
    if (typeof node.type === 'string' && node.start === start && node.end === end) found.push([path, node]);
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (!POSITIONS.has(key) && child && typeof child === 'object') queue.push([child, [...path, key]]);
    }
  }
  return found;
}

function setAt(root, path, value) {
  let node = root;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = value;
}

// the first splice of `replacement` (bare, then parenthesised for an expression) whose parse is
// `want`: { replacement, tree }, or null
function matching(babel, name, text, start, end, replacement, expression, want) {
  const tries = expression ? [[replacement, 'same'], [`(${replacement})`, 'parenthesized']] : [[replacement, 'same']];
  for (const [code, tree] of tries) {
    let got;
    try {
      got = parseFile(babel, name, text.slice(0, start) + code + text.slice(end));
    } catch {
      continue;
    }
    if (JSON.stringify(bare(got.program)) === want) return { replacement: code, tree };
  }
  return null;
}

// the mutant spliced as text, checked against the tree it names: { replacement, tree } or { error }
const parsed = new Map(); // file name -> its tree, parsed once for all its mutants

function splice(babel, types, name, text, start, end, replacement) {
  if (!parsed.has(name)) parsed.set(name, parseFile(babel, name, text));
  const original = parsed.get(name);
  const candidates = spanning(original.program, start, end);
  if (!candidates.length) return { error: 'no node spans exactly its place in the file' };
  for (const [path, node] of candidates) {
    const expression = types.isExpression(node);
    const replaced = parseReplacement(babel, name, replacement, expression);
    if (replaced === null) continue;
    const intended = bare(original.program);
    if (path.length) setAt(intended, path, bare(replaced));
    const found = matching(babel, name, text, start, end, replacement, expression, JSON.stringify(intended));
    if (found) return found;
  }
  return { error: 'spliced into the file, it does not parse as the tree it names, parenthesised or not' };
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
