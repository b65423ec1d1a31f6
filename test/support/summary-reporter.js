'use strict';
// Mocha's spec reporter, plus one closing line "N passed, N failed" that .ci/run and CI read.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || { passes: 0, failures: 0 };
      // Spec prints its epilogue on the same event; print ours after it.
      setImmediate(() => process.stdout.write(`${s.passes} passed, ${s.failures} failed\n`));
    });
  }
}
module.exports = SummaryReporter;
