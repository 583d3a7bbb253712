/**
 * A small model of a terminal screen, for tests of what a person sees: text, line feeds (with the
 * carriage return a tty adds), carriage returns, cursor up (`ESC [ n A`), erase below (`ESC [ 0 J`)
 * and erase line (`ESC [ 2 K`); other CSI sequences (such as showing or hiding the cursor) are
 * ignored. Lines are unbounded in width.
 */
export class Screen {
  readonly lines: string[] = [''];
  private row = 0;
  private col = 0;

  /** Feeds `text` as a terminal would receive it. */
  write(text: string): this {
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === '\x1b' && text[i + 1] === '[') {
        // eslint-disable-next-line no-control-regex
        const match = /^\x1b\[([?\d;]*)([A-Za-z])/.exec(text.slice(i));
        if (match === null) continue;
        i += match[0].length - 1;
        this.csi(match[1]!, match[2]!);
      } else if (c === '\n') {
        this.row++;
        this.col = 0;
        while (this.lines.length <= this.row) this.lines.push('');
      } else if (c === '\r') this.col = 0;
      else {
        const line = this.lines[this.row]!.padEnd(this.col);
        this.lines[this.row] = line.slice(0, this.col) + c + line.slice(this.col + 1);
        this.col++;
      }
    }
    return this;
  }

  /** The screen's text, trailing blanks removed. */
  text(): string {
    return this.lines
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  }

  private csi(params: string, command: string): void {
    const n = Number(params === '' ? 1 : params);
    if (command === 'A') this.row = Math.max(0, this.row - n);
    else if (command === 'J' && (params === '' || params === '0')) {
      this.lines[this.row] = this.lines[this.row]!.slice(0, this.col);
      this.lines.length = this.row + 1;
    } else if (command === 'K' && params === '2') this.lines[this.row] = '';
  }
}
