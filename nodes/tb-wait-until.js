module.exports = require('../dist/nodes/tb-wait-until.js').default;
