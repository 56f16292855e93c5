// Pure line editing for prompts read in raw mode: applies typed keys to a value and says what to echo.

export type LineOutcome = 'more' | 'enter' | 'cancel' | 'eof';

export interface LineEdit {
  value: string;
  /** What to write to the terminal; always empty for hidden input, so nothing about a password shows. */
  echo: string;
  outcome: LineOutcome;
  /** Input after the Enter key, kept for the next prompt (typed-ahead or pasted lines). */
  rest: string;
}

const ESC = '\x1b';

/** Applies `input` to `value`. Stops at Enter (CR, LF or CRLF), Ctrl-C (cancel) or Ctrl-D on an empty line (eof). */
export function editLine(value: string, input: string, hidden: boolean): LineEdit {
  let echo = '';
  let chars = Array.from(value); // code points, so Backspace removes a whole character
  const keys = Array.from(input);
  let i = 0;
  const finish = (outcome: LineOutcome): LineEdit => ({
    value: chars.join(''),
    echo: hidden ? '' : echo,
    outcome,
    rest: keys.slice(i).join(''),
  });
  while (i < keys.length) {
    const key = keys[i++] as string;
    if (key === '\r' || key === '\n') {
      if (key === '\r' && keys[i] === '\n') i++;
      return finish('enter');
    }
    if (key === '\x03') return finish('cancel');
    if (key === '\x04') {
      if (chars.length === 0) return finish('eof');
      continue;
    }
    if (key === '\x7f' || key === '\b') {
      if (chars.length > 0) {
        chars = chars.slice(0, -1);
        echo += '\b \b';
      }
      continue;
    }
    if (key === '\x15') {
      echo += '\b \b'.repeat(chars.length);
      chars = [];
      continue;
    }
    if (key === ESC) {
      i = skipEscapeSequence(keys, i);
      continue;
    }
    if (key < ' ') continue; // other control keys (Tab, Ctrl-letters) do nothing in a prompt
    chars.push(key);
    echo += key;
  }
  return finish('more');
}

/** Index after an ANSI escape sequence (arrow keys, Home, Delete...) whose ESC was at i - 1. */
function skipEscapeSequence(keys: string[], i: number): number {
  const kind = keys[i];
  if (kind === '[') {
    let j = i + 1;
    while (j < keys.length && !/[\x40-\x7e]/.test(keys[j] as string)) j++;
    return Math.min(j + 1, keys.length);
  }
  if (kind === 'O') return Math.min(i + 2, keys.length);
  return i;
}
