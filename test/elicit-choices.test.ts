import { expect } from 'chai';
import { elicitChoices, type ElicitField } from '../index.js';

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
