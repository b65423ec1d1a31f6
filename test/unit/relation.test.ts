/**
 * tb-relation's pure parts: the request of a message (type required for create and delete, optional for find; the
 * related entity required; levels, types), the relation of one entity by direction, the query body (filters always
 * present), and the related entities read from an answer (the far end, each once, with its name).
 */
import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import { prepareRelationRequest, relationKey, relationsQuery } from '../../src/nodes/tb-relation/logic';
import { relatedEntities, relationsQueryBody } from '../../src/protocol/relations';
import { OptionReader } from '../../src/settings/options';

const A = { entityType: 'ASSET', id: '11111111-1111-1111-1111-111111111111' };
const D = { entityType: 'DEVICE', id: '22222222-2222-2222-2222-222222222222' };
const CONF = { direction: 'TO', typeGroup: 'COMMON', maxLevel: 1, lastLevelOnly: false };

function fails(f: () => unknown, field: string, re: RegExp): void {
  assert.throws(f, (e: unknown) => e instanceof TbInputError && e.field === field && re.test(e.message));
}

describe('tb-relation logic', () => {
  it('create: the relation type and the related entity are required; TO makes the related entity the from end', () => {
    const req = prepareRelationRequest('create', CONF, new OptionReader({ relationType: 'Contains' }, {}), A);
    assert.deepEqual(relationKey(D, req), { from: A, to: D, type: 'Contains', typeGroup: 'COMMON' });
    const from = prepareRelationRequest(
      'delete',
      { ...CONF, direction: 'FROM' },
      new OptionReader({}, { relationType: ' Uses ' }),
      A,
    );
    assert.deepEqual(relationKey(D, from), { from: D, to: A, type: 'Uses', typeGroup: 'COMMON' });
    fails(
      () => prepareRelationRequest('create', CONF, new OptionReader({}, {}), A),
      'relationType',
      /Give a relation type/,
    );
    fails(
      () => prepareRelationRequest('create', CONF, new OptionReader({ relationType: 'x' }, {}), undefined),
      'related',
      /msg\.related/,
    );
    fails(
      () => prepareRelationRequest('create', CONF, new OptionReader({ relationType: 'x'.repeat(256) }, {}), A),
      'relationType',
      /255/,
    );
    fails(
      () =>
        prepareRelationRequest(
          'create',
          { ...CONF, typeGroup: 'common' },
          new OptionReader({ relationType: 'x' }, {}),
          A,
        ),
      'typeGroup',
      /did you mean "COMMON"/,
    );
  });

  it('find: any type when empty, levels, entity types checked; the body always has filters', () => {
    const req = prepareRelationRequest(
      'find',
      { ...CONF, direction: 'FROM', maxLevel: 0, lastLevelOnly: true },
      new OptionReader({}, { entityTypes: 'DEVICE, ASSET' }),
      undefined,
    );
    const body = relationsQueryBody(relationsQuery(A, req));
    assert.deepEqual(body, {
      parameters: {
        rootId: A.id,
        rootType: 'ASSET',
        direction: 'FROM',
        relationTypeGroup: 'COMMON',
        maxLevel: 0,
        fetchLastLevelOnly: true,
      },
      filters: [{ entityTypes: ['DEVICE', 'ASSET'] }],
    });
    const any = prepareRelationRequest('find', CONF, new OptionReader({}, {}), undefined);
    assert.deepEqual(relationsQueryBody(relationsQuery(A, any)).filters, []);
    fails(
      () => prepareRelationRequest('find', CONF, new OptionReader({}, { entityTypes: 'ALARM' }), undefined),
      'msg.entityTypes',
      /ALARM is not one of/,
    );
    fails(
      () => prepareRelationRequest('find', { ...CONF, maxLevel: -1 }, new OptionReader({}, {}), undefined),
      'maxLevel',
      /maxLevel/,
    );
  });

  it('the related entities: the far end by direction, each once, with its name', () => {
    const answer = [
      { from: A, to: D, type: 'Contains', toName: 'Dev 1' },
      { from: A, to: D, type: 'Manages', toName: 'Dev 1' },
      { from: A, to: { entityType: 'ASSET', id: '3' }, type: 'Contains', toName: 'Floor' },
    ];
    assert.deepEqual(relatedEntities(answer, 'FROM'), [
      { id: D.id, entityType: 'DEVICE', name: 'Dev 1', relationType: 'Contains' },
      { id: '3', entityType: 'ASSET', name: 'Floor', relationType: 'Contains' },
    ]);
    assert.deepEqual(relatedEntities([{ from: A, to: D, type: 'Contains', fromName: 'Alpha' }], 'TO'), [
      { id: A.id, entityType: 'ASSET', name: 'Alpha', relationType: 'Contains' },
    ]);
    assert.throws(() => relatedEntities({}, 'FROM'), /not a list/);
  });
});
