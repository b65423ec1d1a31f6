'use strict';
// Mocha's spec reporter, plus one closing line "N passed, N failed" that .ci/run and CI read. The reporter option
// `then` (--reporter-option 'then=…') is one more line printed after it: npm test names the tiers it leaves out.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;

class SummaryReporter extends Spec {
  constructor(runner, options = {}) {
    super(runner, options);
    this.then = (options.reporterOption || options.reporterOptions || {}).then;
  }

  // Mocha calls done() after the run, before it exits.
  done(failures, fn) {
    const s = this.stats || { passes: 0, failures: 0 };
    const then = this.then ? `${this.then}\n` : '';
    process.stdout.write(`${s.passes} passed, ${s.failures} failed\n${then}`, () => fn(failures));
  }
}
module.exports = SummaryReporter;
