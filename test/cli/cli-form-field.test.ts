import { expect } from 'chai';
import { fieldPrompt, parseField } from '../../cli/views/form-field.js';
import type { ElicitField } from '../../index.js';

describe('agenttool run: a question field on the terminal', () => {
  it('offers the default on Enter, and requires an answer only for a required field', () => {
    const name: ElicitField = { type: 'string', default: 'Ada' };
    expect(parseField(name, '', true)).to.deep.equal({ value: 'Ada' });
    expect(parseField({ type: 'string' }, '', false)).to.deep.equal({ value: undefined });
    expect(parseField({ type: 'string' }, '', true)).to.deep.equal({
      error: 'an answer is required',
    });
    expect(fieldPrompt('name', name, true)).to.equal('  name* [Ada]: ');
  });

  it('takes a choice by number, value or label (enumNames, oneOf titles)', () => {
    const legacy: ElicitField = { type: 'string', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] };
    expect(fieldPrompt('x', legacy, false)).to.equal('  x: 1) Alpha  2) Beta: ');
    expect(parseField(legacy, '2', false)).to.deep.equal({ value: 'b' });
    expect(parseField(legacy, 'Alpha', false)).to.deep.equal({ value: 'a' });
    expect(parseField(legacy, '3', false)).to.deep.equal({ error: 'choose one of 1, 2' });
    const titled: ElicitField = { type: 'string', oneOf: [{ const: 'v1', title: 'First' }] };
    expect(parseField(titled, 'First', false)).to.deep.equal({ value: 'v1' });
  });

  it('reads several choices, comma-separated, within minItems and maxItems', () => {
    const many: ElicitField = {
      type: 'array',
      items: { type: 'string', enum: ['r', 'g', 'b'] },
      maxItems: 2,
      default: ['r'],
    };
    expect(parseField(many, '1, b', false)).to.deep.equal({ value: ['r', 'b'] });
    expect(parseField(many, '', false)).to.deep.equal({ value: ['r'] });
    expect(parseField(many, '1,2,3', false)).to.deep.equal({ error: 'choose at most 2' });
    expect(fieldPrompt('c', many, false)).to.equal(
      '  c: 1) r  2) g  3) b, several comma-separated [r]: ',
    );
  });

  it('reads a titled multiple choice (items.anyOf) by number or label, answering the values', () => {
    const titled: ElicitField = {
      type: 'array',
      items: {
        anyOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
    };
    expect(fieldPrompt('c', titled, false)).to.equal(
      '  c: 1) Red  2) Green, several comma-separated: ',
    );
    expect(parseField(titled, 'Green, 1', false)).to.deep.equal({ value: ['g', 'r'] });
  });

  it('checks numbers and yes/no answers', () => {
    const age: ElicitField = { type: 'integer', minimum: 0, maximum: 150, default: 30 };
    expect(fieldPrompt('age', age, false)).to.equal('  age (whole number, >= 0, <= 150) [30]: ');
    expect(parseField(age, '41', false)).to.deep.equal({ value: 41 });
    expect(parseField(age, '4.5', false)).to.deep.equal({ error: 'expected a whole number' });
    expect(parseField(age, '200', false)).to.deep.equal({ error: 'expected at most 150' });
    expect(parseField(age, 'old', false)).to.deep.equal({ error: 'expected a number' });
    const sure: ElicitField = { type: 'boolean', default: true };
    expect(fieldPrompt('sure', sure, false)).to.equal('  sure [Y/n]: ');
    expect(parseField(sure, 'no', false)).to.deep.equal({ value: false });
    expect(parseField(sure, '', false)).to.deep.equal({ value: true });
    expect(parseField(sure, 'maybe', false)).to.deep.equal({ error: 'answer y or n' });
  });

  it('ignores bounds no answer could meet: a negative or fractional length, a reversed range', () => {
    const text = { type: 'string', minLength: 1.5, maxLength: -1 } as ElicitField;
    expect(parseField(text, 'Ada', true)).to.deep.equal({ value: 'Ada' });
    const count = { type: 'integer', minimum: 10, maximum: 1 } as ElicitField;
    expect(fieldPrompt('n', count, false)).to.equal('  n (whole number): ');
    expect(parseField(count, '5', false)).to.deep.equal({ value: 5 });
    const many = {
      type: 'array',
      items: { type: 'string', enum: ['r', 'g'] },
      minItems: -1,
      maxItems: 1e12,
    } as ElicitField;
    expect(parseField(many, '1,2', false)).to.deep.equal({ value: ['r', 'g'] });
  });
});
