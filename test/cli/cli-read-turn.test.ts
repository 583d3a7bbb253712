/**
 * Reading a turn file: a JSON document or JSON Lines, and a typo reported at its line and column
 * (the JSON checker agrees with `JSON.parse` on what is valid); and the placeholders a terminal
 * shows for inline images and files.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { jsonSyntaxError } from '../../cli/json-syntax.js';
import { parseTurn } from '../../cli/read-turn.js';
import { dataPlaceholder, withMediaPlaceholders } from '../../cli/views/media-placeholder.js';

const item = (id: string) =>
  JSON.stringify({ type: 'function_call', call_id: id, name: 'bash', arguments: '{}' });

describe('agenttool run: a turn file with a typo', () => {
  const cases: [string, string, string][] = [
    [
      'a pretty-printed array missing a comma',
      '[\n  {\n    "type": "function_call",\n    "call_id": "a"\n    "name": "bash"\n  }\n]\n',
      'turn.json: line 5, column 5: not valid JSON: unexpected "\\""',
    ],
    [
      'a pretty-printed response with a trailing comma',
      '{\n  "output": [\n    {"type": "message"},\n  ]\n}',
      'turn.json: line 4, column 3: not valid JSON: unexpected "]"',
    ],
    [
      'a pretty-printed object cut short',
      '{\n  "type": "function_call",\n  "call_id": "a",\n',
      'turn.json: line 4, column 1: not valid JSON: unexpected end of input',
    ],
    [
      'a string with a raw line break',
      '[\n  {"type": "function_call", "name": "bash\n"}\n]',
      'turn.json: line 2, column 42: not valid JSON: unescaped "\\n" in a string',
    ],
    [
      'a bad line of JSON Lines',
      `${item('a')}\n\n${item('b')}\n{"type": function_call}\n`,
      'turn.json: line 4, column 10: not valid JSON: unexpected "f"',
    ],
  ];
  for (const [what, text, message] of cases)
    it(`reports ${what} at its line and column`, () => {
      expect(() => parseTurn(text, 'turn.json')).to.throw(message);
      expect(() => parseTurn(text, 'turn.json')).to.throw(/^[^\n]*$/);
    });

  it('still reads a document, and JSON Lines', () => {
    expect(parseTurn(`[\n${item('a')},\n${item('b')}\n]`, 't')).to.have.length(2);
    expect(parseTurn(`${item('a')}\n${item('b')}\n`, 't')).to.have.length(2);
  });

  it('finds an error exactly where JSON.parse fails', () => {
    const valid = (text: string): boolean => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    const json = fc.jsonValue().map((v) => JSON.stringify(v, null, 2));
    // Valid JSON, and the same with one character dropped, doubled or replaced.
    const mutated = fc
      .tuple(json, fc.nat(), fc.constantFrom('', ',', '"', ']', '}', ':', '\\', '\n', 'x', '0'))
      .map(([text, at, c]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + c + text.slice(i + (c === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(json, mutated, fc.string()), (text) => {
        const error = jsonSyntaxError(text);
        expect(error === undefined, JSON.stringify(text)).to.equal(valid(text));
        if (error !== undefined) expect(error.offset).to.be.within(0, text.length);
      }),
      { numRuns: 2000 },
    );
    expect(jsonSyntaxError('['.repeat(100_000) + ']'.repeat(100_000))).to.equal(undefined);
  });
});

describe('agenttool run: images and files on a terminal', () => {
  it('shows a data: URL as its type and decoded size', () => {
    const png = `data:image/png;base64,${Buffer.alloc(8000).toString('base64')}`;
    expect(dataPlaceholder(png)).to.equal('[image/png, 7.8 KiB]');
    expect(dataPlaceholder('data:,hello%20world')).to.equal('[text/plain, 11 B]');
    expect(dataPlaceholder('https://example.com/cat.png')).to.equal('https://example.com/cat.png');
  });

  it('replaces inline images and files in the output items, leaving text and URLs', () => {
    const items = [
      { type: 'function_call_output' as const, call_id: 'a', output: 'text' },
      {
        type: 'function_call_output' as const,
        call_id: 'b',
        output: [
          { type: 'input_text' as const, text: 'see' },
          { type: 'input_image' as const, image_url: 'data:image/gif;base64,R0lGODlh' },
          { type: 'input_image' as const, image_url: 'https://example.com/x.png' },
          {
            type: 'input_file' as const,
            filename: 'a.pdf',
            file_data: 'data:application/pdf;base64,JVBERi0xLjQ=',
          },
        ],
      },
    ];
    expect(withMediaPlaceholders(items)).to.deep.equal([
      items[0],
      {
        type: 'function_call_output',
        call_id: 'b',
        output: [
          { type: 'input_text', text: 'see' },
          { type: 'input_image', image_url: '[image/gif, 6 B]' },
          { type: 'input_image', image_url: 'https://example.com/x.png' },
          { type: 'input_file', filename: 'a.pdf', file_data: '[application/pdf, 8 B]' },
        ],
      },
    ]);
  });
});
