import assert from 'node:assert/strict';
import { prepareAlarmStatusOptions, prepareKeysOptions } from '../../../src/protocol/validate';
import { throwsInput } from '../helpers';

describe('query/validate/options: key discovery and alarm status options', () => {
  describe('prepareKeysOptions', () => {
    it('defaults both includes to true and no scopes', () => {
      assert.deepEqual(prepareKeysOptions({}, 'keys'), {
        includeTimeseries: true,
        includeAttributes: true,
        scopes: [],
      });
      assert.deepEqual(prepareKeysOptions(undefined), { includeTimeseries: true, includeAttributes: true, scopes: [] });
    });

    it('accepts booleans, "true"/"false" and a scope array or comma string', () => {
      assert.deepEqual(
        prepareKeysOptions(
          { timeseries: false, attributes: true, scopes: ['SHARED_SCOPE', 'SERVER_SCOPE', 'SHARED_SCOPE'] },
          'keys',
        ),
        {
          includeTimeseries: false,
          includeAttributes: true,
          scopes: ['SHARED_SCOPE', 'SERVER_SCOPE'],
        },
      );
      assert.deepEqual(
        prepareKeysOptions(
          { timeseries: 'true', attributes: 'false', scopes: ' CLIENT_SCOPE , SERVER_SCOPE,,' },
          'keys',
        ),
        {
          includeTimeseries: true,
          includeAttributes: false,
          scopes: ['CLIENT_SCOPE', 'SERVER_SCOPE'],
        },
      );
      assert.deepEqual(prepareKeysOptions({ scopes: '' }, 'keys').scopes, []);
    });

    it('needs at least one include and valid scopes', () => {
      throwsInput(
        () => prepareKeysOptions({ timeseries: false, attributes: false }, 'keys'),
        'keys',
        'at least one of timeseries or attributes',
      );
      throwsInput(
        () => prepareKeysOptions({ timeseries: 'no' }, 'keys'),
        'keys.timeseries',
        'true or false',
        '(got "no")',
      );
      throwsInput(
        () => prepareKeysOptions({ scopes: 'SERVER_SCOPE,PUBLIC' }, 'keys'),
        'keys.scopes',
        'one of SERVER_SCOPE, SHARED_SCOPE, CLIENT_SCOPE',
        '(got "PUBLIC")',
      );
      throwsInput(
        () => prepareKeysOptions({ scopes: ['server_scope'] }, 'keys'),
        'keys.scopes[0]',
        'did you mean "SERVER_SCOPE"?',
      );
      throwsInput(() => prepareKeysOptions({ scopes: 5 }, 'keys'), 'keys.scopes', 'array', '(got 5)');
    });
  });

  describe('prepareAlarmStatusOptions', () => {
    it('gives empty lists (= any) by default', () => {
      assert.deepEqual(prepareAlarmStatusOptions({}), { typeList: [], severityList: [] });
      assert.deepEqual(prepareAlarmStatusOptions({ typeList: '', severityList: null }), {
        typeList: [],
        severityList: [],
      });
      assert.deepEqual(prepareAlarmStatusOptions(undefined), { typeList: [], severityList: [] });
    });

    it('accepts comma strings and arrays, trims and deduplicates', () => {
      assert.deepEqual(
        prepareAlarmStatusOptions({
          typeList: ' High Temperature , Low Battery,,High Temperature',
          severityList: 'CRITICAL, MAJOR',
        }),
        {
          typeList: ['High Temperature', 'Low Battery'],
          severityList: ['CRITICAL', 'MAJOR'],
        },
      );
      assert.deepEqual(prepareAlarmStatusOptions({ typeList: ['a', ' b ', ''], severityList: ['MINOR', 'MINOR'] }), {
        typeList: ['a', 'b'],
        severityList: ['MINOR'],
      });
    });

    it('checks the severities and the types', () => {
      throwsInput(
        () => prepareAlarmStatusOptions({ severityList: 'CRITICAL,HIGH' }),
        'severityList',
        'one of CRITICAL, MAJOR, MINOR, WARNING',
        '(got "HIGH")',
      );
      throwsInput(
        () => prepareAlarmStatusOptions({ severityList: ['critical'] }, 'config'),
        'config.severityList[0]',
        'did you mean "CRITICAL"?',
      );
      throwsInput(() => prepareAlarmStatusOptions({ typeList: [1] }), 'typeList[0]', 'must be a string', '(got 1)');
      throwsInput(() => prepareAlarmStatusOptions({ typeList: 5 }), 'typeList', 'comma-separated string', '(got 5)');
    });
  });
});
