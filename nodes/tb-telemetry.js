module.exports = require('../dist/nodes/tb-telemetry.js').default;
