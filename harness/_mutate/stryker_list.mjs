// List the operator mutants Stryker's own instrumenter makes for JS/TS files, as JSON on stdout.
//
//   node stryker_list.mjs FILE...    (run in the project folder; paths relative to it)
//
// The package is resolved from the working folder (its node_modules), so the project decides
// which @stryker-mutator/instrumenter it installs. Each mutant: the file, Stryker's mutator
// name, its 1-based start/end line and 0-based column, the original text and the replacement.
// Nothing is written: the harness applies each replacement to a scratch copy itself.
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
    out.push({
      file: files.find((f) => resolve(f) === resolve(m.fileName)) ?? m.fileName,
      mutator: m.mutatorName, line: m.location.start.line + 1, column: m.location.start.column + 1,
      end_line: m.location.end.line + 1, end_column: m.location.end.column + 1,
      start, end, original: text.slice(start, end), replacement: m.replacement,
    });
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
