import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFrameworkImage, versionsAgree } from './images.js';

function like(actual: object | undefined, want: Record<string, string>): void {
  assert.ok(actual);
  for (const [k, v] of Object.entries(want)) assert.equal((actual as Record<string, unknown>)[k], v, k);
}

describe('parseFrameworkImage', () => {
  it('reads the images the SageMaker Python SDK picks, in any account and region', () => {
    like(parseFrameworkImage('683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3'), {
      framework: 'sklearn',
      version: '1.2-1',
      role: 'both',
    });
    like(parseFrameworkImage('763104351884.dkr.ecr.eu-west-1.amazonaws.com/pytorch-training:2.0.1-cpu-py310'), {
      framework: 'pytorch',
      version: '2.0.1',
      role: 'training',
    });
    like(parseFrameworkImage('763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-inference:1.13-cpu-py39'), {
      framework: 'pytorch',
      version: '1.13',
      role: 'inference',
    });
    like(
      parseFrameworkImage(
        '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.0.0-transformers4.28.1-cpu-py310-ubuntu20.04',
      ),
      { framework: 'huggingface', version: '4.28.1', role: 'inference' },
    );
    like(
      parseFrameworkImage(
        '763104351884.dkr.ecr.cn-north-1.amazonaws.com.cn/tensorflow-training:2.13.0-cpu-py310-ubuntu20.04-sagemaker',
      ),
      {
        framework: 'tensorflow',
        version: '2.13.0',
      },
    );
    like(parseFrameworkImage('683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1'), {
      framework: 'xgboost',
      version: '1.7-1',
    });
  });

  it('leaves other images alone', () => {
    assert.equal(parseFrameworkImage('123456789012.dkr.ecr.us-east-1.amazonaws.com/my-model:1.0'), undefined);
    assert.equal(parseFrameworkImage('sagemaker-scikit-learn:1.2-1'), undefined);
    assert.equal(parseFrameworkImage('evil.example.com/sagemaker-scikit-learn:1.2-1'), undefined);
  });
});

describe('versionsAgree', () => {
  it('compares major and minor', () => {
    assert.equal(versionsAgree('1.2-1', '1.2.1'), true);
    assert.equal(versionsAgree('1.2-1', '1.3.0'), false);
    assert.equal(versionsAgree('2.0.1', '2.0.0+cpu'), true);
    assert.equal(versionsAgree('2.0.1', undefined), undefined);
  });
});
