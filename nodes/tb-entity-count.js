module.exports = require('../dist/nodes/tb-entity-count.js').default;
