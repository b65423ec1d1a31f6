/**
 * Node-RED embedded (scripts/embedded.ts) in a child process, for tests that need the real editor API with its
 * own settings (e.g. adminAuth): a separate process keeps the runtime's module state away from the test
 * helper's. Options come as JSON in TB_EMBEDDED_OPTIONS; it prints one line `{"url": …}` and stops when its stdin
 * closes (so a dead parent never leaves it running) or on SIGTERM.
 */
import { startNodeRed, type EmbeddedOptions } from '../../scripts/embedded';

const opts = JSON.parse(process.env.TB_EMBEDDED_OPTIONS ?? '{}') as EmbeddedOptions;

startNodeRed(opts).then(
  (nr) => {
    process.stdout.write(`${JSON.stringify({ url: nr.url })}\n`);
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void nr.stop().finally(() => process.exit(0));
    };
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    process.on('SIGTERM', stop);
    process.stdin.resume();
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
