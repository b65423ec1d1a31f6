module.exports = require('../dist/nodes/tb-alarm-action.js').default;
