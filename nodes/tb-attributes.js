module.exports = require('../dist/nodes/tb-attributes.js').default;
