module.exports = require('../dist/nodes/tb-alarm-query.js').default;
