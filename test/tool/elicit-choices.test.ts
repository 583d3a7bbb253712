import { expect } from 'chai';
import { elicitChoices, type ElicitField } from '../../index.js';
import { usableBounds } from '../../lib/elicit-choices.js';

describe('elicitChoices: the choices of a question field, in every form MCP gives them', () => {
  it('lists a single choice: enum labelled by enumNames, or titled oneOf', () => {
    const named: ElicitField = { type: 'string', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] };
    expect(elicitChoices(named)).to.deep.equal([
      { value: 'a', label: 'Alpha' },
      { value: 'b', label: 'Beta' },
    ]);
    expect(elicitChoices({ type: 'string', enum: ['a'] })).to.deep.equal([
      { value: 'a', label: 'a' },
    ]);
    const titled: ElicitField = { type: 'string', oneOf: [{ const: 'v1', title: 'First' }] };
    expect(elicitChoices(titled)).to.deep.equal([{ value: 'v1', label: 'First' }]);
  });

  it('lists a multiple choice: items.enum, or titled items.anyOf', () => {
    const plain: ElicitField = { type: 'array', items: { type: 'string', enum: ['x', 'y'] } };
    expect(elicitChoices(plain)).to.deep.equal([
      { value: 'x', label: 'x' },
      { value: 'y', label: 'y' },
    ]);
    const titled: ElicitField = {
      type: 'array',
      items: { anyOf: [{ const: 'r', title: 'Red' }] },
    };
    expect(elicitChoices(titled)).to.deep.equal([{ value: 'r', label: 'Red' }]);
  });

  it('is undefined for a field that is not a choice', () => {
    expect(elicitChoices({ type: 'string' })).to.equal(undefined);
    expect(elicitChoices({ type: 'integer', minimum: 1 })).to.equal(undefined);
    expect(elicitChoices({ type: 'boolean' })).to.equal(undefined);
  });
});

describe('usableBounds: the bounds of a question field a form can use', () => {
  it('leaves out lengths and counts that are not whole numbers from 0 to 2^31 - 1', () => {
    const text = { type: 'string', minLength: -1, maxLength: 2.5 } as ElicitField;
    expect(usableBounds(text)).to.deep.equal({ type: 'string' });
    const huge = { type: 'string', minLength: 1, maxLength: 1e300 } as ElicitField;
    expect(usableBounds(huge)).to.deep.equal({ type: 'string', minLength: 1 });
    const items = {
      type: 'array',
      items: { type: 'string', enum: ['x'] },
      minItems: -3,
      maxItems: 1,
    };
    expect(usableBounds(items as ElicitField)).to.deep.equal({
      type: 'array',
      items: { type: 'string', enum: ['x'] },
      maxItems: 1,
    });
  });

  it('leaves out a minimum or maximum that is not a finite number', () => {
    const field = { type: 'number', minimum: Number.NaN, maximum: '9' } as unknown as ElicitField;
    expect(usableBounds(field)).to.deep.equal({ type: 'number' });
    const fine: ElicitField = { type: 'integer', minimum: -2.5, maximum: 1e6, title: 'n' };
    expect(usableBounds(fine)).to.equal(fine);
  });

  it('leaves out both bounds of a pair that nothing fits', () => {
    const field: ElicitField = { type: 'string', minLength: 5, maxLength: 2, title: 't' };
    expect(usableBounds(field)).to.deep.equal({ type: 'string', title: 't' });
    expect(usableBounds({ type: 'number', minimum: 3, maximum: 1 })).to.deep.equal({
      type: 'number',
    });
  });
});
