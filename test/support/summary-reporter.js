'use strict';
// Mocha's spec reporter, plus one closing line "N passed, N failed" that .ci/run and CI read.
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;

class SummaryReporter extends Spec {
  // Mocha calls done() after the run, before it exits (also with --exit).
  done(failures, fn) {
    const s = this.stats || { passes: 0, failures: 0 };
    process.stdout.write(`${s.passes} passed, ${s.failures} failed\n`, () => fn(failures));
  }
}
module.exports = SummaryReporter;
