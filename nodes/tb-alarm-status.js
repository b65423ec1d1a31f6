module.exports = require('../dist/nodes/tb-alarm-status.js').default;
