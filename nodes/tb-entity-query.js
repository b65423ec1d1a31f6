module.exports = require('../dist/nodes/tb-entity-query.js').default;
