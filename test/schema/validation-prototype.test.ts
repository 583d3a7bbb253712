import { expect } from 'chai';
import { ValidationError } from '../../index.js';
import { ENGINES } from '../support/validators.js';
for (const { engine, compileValidator } of ENGINES) {
  function messageOf(parse: () => unknown): string {
    try {
      parse();
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      return (error as Error).message;
    }
    return 'accepted';
  }

  describe(`validation when Object.prototype is polluted (${engine})`, () => {
    const validator = compileValidator({
      type: 'object',
      properties: { path: { type: 'string' }, mode: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    });
    const prototype = Object.prototype as { [key: string]: unknown };

    it('reads only own properties, so inherited ones neither satisfy nor break the schema', () => {
      expect(messageOf(() => validator.parse('{}'))).to.equal(
        'invalid arguments: missing required property "path"',
      );
      prototype.path = 'injected';
      prototype.mode = 1;
      try {
        expect(messageOf(() => validator.parse('{}'))).to.equal(
          'invalid arguments: missing required property "path"',
        );
        expect(validator.parse('{"path":"a"}')).to.deep.equal({ path: 'a' });
        expect(messageOf(() => validator.parse('{"path":"a","mode":2}'))).to.equal(
          'invalid arguments: mode: expected string, got 2',
        );
      } finally {
        delete prototype.path;
        delete prototype.mode;
      }
      expect(messageOf(() => validator.parse('{}'))).to.equal(
        'invalid arguments: missing required property "path"',
      );
      expect(validator.parse('{"path":"b"}')).to.deep.equal({ path: 'b' });
    });
  });
}
