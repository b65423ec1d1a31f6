module.exports = require('../dist/nodes/tb-build-report.js').default;
