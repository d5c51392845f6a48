import { StringDecoder } from 'node:string_decoder';

/** A detach key is one control byte (`controlKeyByte('ctrl-q')` is "\x11"). */
function checkDetachByte(detachByte: string): number {
  const code = detachByte.length === 1 ? detachByte.charCodeAt(0) : -1;
  if (code < 0x01 || code > 0x1f) throw new Error(`not a control key byte: ${JSON.stringify(detachByte)}`);
  return code;
}

/** The key's character: ctrl-q is `q`, ctrl-] is `]`. */
function keyChar(code: number): string {
  return String.fromCharCode(code <= 0x1a ? code | 0x60 : code | 0x40);
}

/** The detach key as a person reads it: `Ctrl-Q`. */
export function detachKeyName(detachByte: string): string {
  return `Ctrl-${keyChar(checkDetachByte(detachByte)).toUpperCase()}`;
}

/**
 * What a terminal may send for the detach key. The agent's bytes reach the user's terminal
 * while attached, so an agent that turns on the kitty keyboard protocol or xterm's
 * modifyOtherKeys changes how ctrl-q arrives: `CSI 113;5u` or `CSI 27;5;113~` instead of
 * the byte. All forms detach, or the user could not get out.
 */
export function detachSequences(detachByte: string): string[] {
  const code = keyChar(checkDetachByte(detachByte)).charCodeAt(0);
  return [detachByte, `\x1b[${code};5u`, `\x1b[${code};5:1u`, `\x1b[27;5;${code}~`];
}

/**
 * Splits typed text at the first detach sequence: what comes before it still goes to the
 * agent (a fast typist or a paste can put both in one chunk); what follows is dropped.
 */
export function splitAtDetach(text: string, sequences: readonly string[]): { forward: string; detached: boolean } {
  let at = -1;
  for (const seq of sequences) {
    const i = text.indexOf(seq);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at < 0 ? { forward: text, detached: false } : { forward: text.slice(0, at), detached: true };
}

/**
 * Input chunks (Buffers, or strings once a stream has an encoding, as Ink sets) to text for
 * the agent, split at the detach key. A streaming decoder keeps a UTF-8 character cut
 * between two chunks whole; a control byte is never part of a multi-byte character, so
 * splitting the decoded text is splitting the bytes.
 */
export function inputSplitter(detachByte: string): (chunk: Buffer | string) => { forward: string; detached: boolean } {
  const sequences = detachSequences(detachByte);
  const decoder = new StringDecoder('utf8');
  return (chunk) => splitAtDetach(typeof chunk === 'string' ? chunk : decoder.write(chunk), sequences);
}

/** tmux's name for the key, for `bind-key`: "\x11" -> `C-q`. */
export function tmuxKeyName(detachByte: string): string {
  return `C-${keyChar(checkDetachByte(detachByte))}`;
}
