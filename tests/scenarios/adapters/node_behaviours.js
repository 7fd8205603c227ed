// Pipelines that exercise the Node adapter's edges; run as `node node_behaviours.js ADAPTER_PATH`.
'use strict';

const { serve } = require(process.argv[2]);

function throws() {
  throw new RangeError('too far');
}

serve({
  name: 'node-behaviours',
  version: '1',
  pipelines: {
    throws,
    later: async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { later: input.n };
    },
    undef: () => undefined,
    nan: () => ({ x: NaN }),
    logs: () => {
      console.log('progress, through console.log');
      process.stdout.write('a raw write to process.stdout\n');
      return { logged: true };
    },
  },
});
