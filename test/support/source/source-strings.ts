// The strings a TypeScript source spells out (quoted strings, the text parts of template strings, JSX attribute
// strings), found in one pass over the text without the TypeScript parser, whose import and parse cost the unit tests
// seconds. It steps over comments, regular expressions and JSX text; test/table-ownership-strings.test.ts checks that
// it finds exactly what the parser finds in every file of src/.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The TypeScript sources under `dir` (declaration files left out), at any depth. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx|mts)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** A string's value from its raw text: escapes replaced, line continuations removed (as the parser's `text`). */
function cook(raw: string): string {
  return raw.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/g, (_, e: string) => {
    if (e.length > 1 && e[0] === 'u') return String.fromCodePoint(Number.parseInt(e.replace(/[u{}]/g, ''), 16));
    if (e.length > 1 && e[0] === 'x') return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (e === '\r\n' || e === '\n' || e === '\r' || e === '\u2028' || e === '\u2029') return '';
    return SIMPLE_ESCAPES[e] ?? e;
  });
}

/** Words after which `/` starts a regular expression and `<` a JSX element, as after an operator. */
const EXPRESSION_KEYWORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** Every string of `text`, in source order; `jsx` for .tsx files. */
export function stringLiteralsOf(text: string, jsx: boolean): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;

  /** At a quote: the raw text up to the closing one (or the line's end), and past it. */
  function quoted(): string {
    const q = text[i++];
    const start = i;
    while (i < n && text[i] !== q && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
    const raw = text.slice(start, i);
    i++;
    return raw;
  }

  /** Just after a backquote: each text part, with the code of its substitutions read in between. */
  function template(): void {
    let start = i;
    while (i < n) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        out.push(cook(text.slice(start, i++)));
        return;
      } else if (c === '$' && text[i + 1] === '{') {
        out.push(cook(text.slice(start, i)));
        i += 2;
        code(true);
        start = i;
      } else i++;
    }
  }

  /** At a `/` that starts a regular expression: past it and its flags. */
  function regex(): void {
    let inClass = false;
    for (i++; i < n && text[i] !== '\n'; i++) {
      const c = text[i];
      if (c === '\\') i++;
      else if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
    }
    i++;
    while (i < n && /[a-z]/.test(text[i]!)) i++;
  }

  /** At a `<` that opens a JSX element or fragment: past its closing tag, its attribute strings and code read. */
  function element(): void {
    i++;
    while (i < n && /[\w.:-]/.test(text[i]!)) i++;
    while (i < n) {
      const c = text[i]!;
      if (c === '/' && text[i + 1] === '>') {
        i += 2;
        return;
      }
      if (c === '>') {
        i++;
        children();
        return;
      }
      if (c === '"' || c === "'") out.push(quoted());
      else if (c === '{') {
        i++;
        code(true);
      } else i++;
    }
  }

  /** After an opening tag: text (no strings in it), elements and `{code}`, up to and past the closing tag. */
  function children(): void {
    while (i < n) {
      const c = text[i];
      if (c === '<' && text[i + 1] === '/') {
        while (i < n && text[i] !== '>') i++;
        i++;
        return;
      }
      if (c === '<') element();
      else if (c === '{') {
        i++;
        code(true);
      } else i++;
    }
  }

  /** Code up to the `}` that closes the substitution or JSX expression it is in (`inBraces`), or to the end. */
  function code(inBraces: boolean): void {
    let depth = 0;
    /** Whether the last token was a value (a name, a number, a closing bracket): then `/` divides and `<` compares. */
    let afterValue = false;
    while (i < n) {
      const c = text[i]!;
      const next = text[i + 1];
      if (c === '/' && next === '/') {
        while (i < n && text[i] !== '\n') i++;
      } else if (c === '/' && next === '*') {
        const end = text.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
      } else if (c === '"' || c === "'") {
        out.push(cook(quoted()));
        afterValue = true;
      } else if (c === '`') {
        i++;
        template();
        afterValue = true;
      } else if (c === '/' && !afterValue) {
        regex();
        afterValue = true;
      } else if (c === '<' && jsx && !afterValue && next !== undefined && /[A-Za-z>]/.test(next)) {
        element();
        afterValue = true;
      } else if (/[\w$]/.test(c)) {
        const start = i;
        while (i < n && /[\w$]/.test(text[i]!)) i++;
        afterValue = !EXPRESSION_KEYWORDS.has(text.slice(start, i));
      } else if (c === '}' && depth === 0 && inBraces) {
        i++;
        return;
      } else {
        if (c === '{') depth++;
        if (c === '}') depth--;
        if (!/\s/.test(c)) afterValue = c === ')' || c === ']';
        i++;
      }
    }
  }

  code(false);
  return out;
}
