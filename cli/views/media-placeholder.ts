/**
 * Output items as a terminal shows them: an inline image or file (a `data:` URL, kilobytes of
 * base64) becomes a short placeholder naming its type and size, `[image/png, 7.9 KiB]`. For the
 * text output `agenttool run` writes for a person (docs/cli.md); `--json` gets the items as they
 * are.
 *
 * @module
 */
import type { ContentPart, FunctionCallOutputItem } from '../../index.js';

/** A size for a person: `512 B`, `7.9 KiB`, `1.2 MiB`. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A `data:` URL as `[<media type>, <decoded size>]`; any other text is returned as it is.
 */
export function dataPlaceholder(url: string): string {
  const match = /^data:([^,;]*)((?:;[^,;]*)*),/i.exec(url);
  if (match === null) return url;
  const type = match[1] === '' ? 'text/plain' : match[1]!;
  const data = url.slice(match[0].length);
  let bytes: number;
  if (/;base64$/i.test(match[2]!)) {
    const digits = data.replace(/[^A-Za-z0-9+/]/g, '').length;
    bytes = Math.floor((digits * 3) / 4);
  } else {
    try {
      bytes = Buffer.byteLength(decodeURIComponent(data));
    } catch {
      bytes = data.length;
    }
  }
  return `[${type}, ${size(bytes)}]`;
}

function shortPart(part: ContentPart): ContentPart {
  if (part.type === 'input_image' && part.image_url !== undefined)
    return { ...part, image_url: dataPlaceholder(part.image_url) };
  if (part.type === 'input_file' && part.file_data !== undefined)
    return { ...part, file_data: dataPlaceholder(part.file_data) };
  return part;
}

/** The items with every inline image and file shown as {@link dataPlaceholder}. */
export function withMediaPlaceholders(
  items: readonly FunctionCallOutputItem[],
): FunctionCallOutputItem[] {
  return items.map((item) =>
    typeof item.output === 'string' ? item : { ...item, output: item.output.map(shortPart) },
  );
}
