import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { model } from '../../generated/sagemaker/model.js';
import { SerializationException, ValidationException } from '../common-errors.js';
import type { ServiceModel } from '../model.js';
import { validateInput } from './validate.js';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ValidationException || err instanceof SerializationException, String(err));
    return `${err.code}: ${err.message}`;
  }
  assert.fail('expected an error');
}

const PATTERN = '[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}';

describe('validation against the SageMaker model', () => {
  test('a valid input passes and keeps only modelled members', () => {
    const out = validateInput(model, 'CreateModelPackageGroupInput', {
      ModelPackageGroupName: 'ok-name',
      Tags: [{ Key: 'k', Value: 'v' }],
      Unknown: 1,
    });
    assert.deepEqual(out, { ModelPackageGroupName: 'ok-name', Tags: [{ Key: 'k', Value: 'v' }] });
  });

  test('required, pattern and length, counted, with lowerCamel paths and 1-based indexes', () => {
    assert.equal(
      message(() => validateInput(model, 'CreateModelPackageGroupInput', {})),
      "ValidationException: 1 validation error detected: Value null at 'modelPackageGroupName' failed to satisfy constraint: Member must not be null",
    );
    assert.equal(
      message(() => validateInput(model, 'CreateModelPackageGroupInput', { ModelPackageGroupName: 'x!' })),
      `ValidationException: 1 validation error detected: Value 'x!' at 'modelPackageGroupName' failed to satisfy constraint: Member must satisfy regular expression pattern: ${PATTERN}`,
    );
    assert.equal(
      message(() =>
        validateInput(model, 'CreateModelPackageGroupInput', {
          ModelPackageGroupName: 'ok',
          Tags: [{ Key: 'a', Value: 'b' }, { Key: 'bad#key', Value: 'x'.repeat(257) }, { Value: 'v' }],
        }),
      ),
      'ValidationException: 3 validation errors detected: ' +
        "Value 'bad#key' at 'tags.2.member.key' failed to satisfy constraint: Member must satisfy regular expression pattern: ([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*); " +
        `Value '${'x'.repeat(257)}' at 'tags.2.member.value' failed to satisfy constraint: Member must have length less than or equal to 256; ` +
        "Value null at 'tags.3.member.key' failed to satisfy constraint: Member must not be null",
    );
  });

  test('patterns are matched against the whole value, Unicode classes included', () => {
    assert.doesNotThrow(() =>
      validateInput(model, 'CreateModelPackageGroupInput', {
        ModelPackageGroupName: 'a',
        Tags: [{ Key: 'équipe données', Value: 'x' }],
      }),
    );
    assert.match(
      message(() => validateInput(model, 'CreateModelPackageGroupInput', { ModelPackageGroupName: 'ab-' })),
      /regular expression pattern/,
    );
  });

  test('look-behind patterns use their RE2 equivalent but quote the model pattern', () => {
    const arn = 'arn:aws:sagemaker:us-east-1:111122223333:model-package-group/g1';
    assert.doesNotThrow(() => validateInput(model, 'DescribeModelPackageGroupInput', { ModelPackageGroupName: arn }));
    assert.doesNotThrow(() => validateInput(model, 'DescribeModelPackageGroupInput', { ModelPackageGroupName: 'a' }));
    const m = message(() => validateInput(model, 'DescribeModelPackageGroupInput', { ModelPackageGroupName: 'ends-' }));
    assert.ok(m.endsWith('(?<!-)'), m);
  });

  test('range and enum', () => {
    assert.equal(
      message(() => validateInput(model, 'ListModelPackageGroupsInput', { MaxResults: 0, SortBy: 'Size' })),
      "ValidationException: 2 validation errors detected: Value '0' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1; " +
        "Value 'Size' at 'sortBy' failed to satisfy constraint: Member must satisfy enum value set: [Name, CreationTime]",
    );
  });

  test('list length', () => {
    assert.match(
      message(() =>
        validateInput(model, 'DeleteTagsInput', {
          ResourceArn: 'arn:aws:sagemaker:us-east-1:111122223333:model-package-group/g',
          TagKeys: [],
        }),
      ),
      /Value '\[\]' at 'tagKeys' failed to satisfy constraint: Member must have length greater than or equal to 1/,
    );
  });

  test('wrong JSON types are SerializationException', () => {
    assert.match(
      message(() => validateInput(model, 'CreateModelPackageGroupInput', { ModelPackageGroupName: 5 })),
      /^SerializationException: NUMBER_VALUE can not be converted to a String/,
    );
    assert.match(
      message(() => validateInput(model, 'ListModelPackageGroupsInput', { MaxResults: '5' })),
      /^SerializationException: STRING_VALUE can not be converted to an Integer/,
    );
    assert.match(
      message(() => validateInput(model, 'CreateModelPackageGroupInput', { ModelPackageGroupName: 'a', Tags: {} })),
      /^SerializationException: START_OBJECT can not be converted to a list/,
    );
  });

  test('timestamps arrive as epoch seconds or ISO strings and become Dates', () => {
    const out = validateInput(model, 'ListModelPackageGroupsInput', {
      CreationTimeAfter: 1700000000.5,
      CreationTimeBefore: '2024-01-02T03:04:05Z',
    }) as { CreationTimeAfter: Date; CreationTimeBefore: Date };
    assert.equal(out.CreationTimeAfter.getTime(), 1700000000500);
    assert.equal(out.CreationTimeBefore.toISOString(), '2024-01-02T03:04:05.000Z');
    assert.match(
      message(() => validateInput(model, 'ListModelPackageGroupsInput', { CreationTimeAfter: 'yesterday' })),
      /^SerializationException/,
    );
  });

  test('a hostile 100 KB value is checked in linear time', () => {
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) {
      message(() =>
        validateInput(model, 'DescribeModelPackageGroupInput', { ModelPackageGroupName: `${'a-'.repeat(50_000)}-!` }),
      );
    }
    assert.ok(performance.now() - t0 < 1000, 'ten 100 KB values took over a second');
  });

  test('maps report key and value constraints at the map path', () => {
    const m: ServiceModel = {
      metadata: model.metadata,
      operations: {},
      shapes: {
        In: { type: 'structure', members: { Env: { shape: 'Env' } } },
        Env: { type: 'map', key: 'K', value: 'V', max: 2 },
        K: { type: 'string', max: 3, pattern: '[A-Z]+' },
        V: { type: 'string', max: 2 },
      },
    };
    assert.equal(
      message(() => validateInput(m, 'In', { Env: { ABCD: 'x', ok: 'long' } })),
      "ValidationException: 2 validation errors detected: Value '{ABCD=x, ok=long}' at 'env' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 3, Member must satisfy regular expression pattern: [A-Z]+]; " +
        "Value '{ABCD=x, ok=long}' at 'env' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 2]",
    );
  });
});
