/**
 * Written when attach mode ends (and before it starts), so nothing an agent switched on
 * outlives it in the user's terminal: its bytes reached that terminal directly,
 * and a dashboard drawn over a terminal still in mouse-tracking, bracketed-paste or
 * application-keys mode would read garbage for keys. Ends on the main screen, cleared,
 * cursor at home: a caller that draws on the alternate screen enters it again.
 */
export const RESET_TERMINAL_MODES = [
  '\x1b[?1049l', // leave the alternate screen (the agent's, or the dashboard's)
  '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l', // mouse tracking and its encodings off
  '\x1b[?2004l', // bracketed paste off
  '\x1b[?1004l', // focus reporting off
  '\x1b[?1l\x1b>', // cursor keys and keypad back to normal (not application) mode
  '\x1b[<99u', // kitty keyboard protocol: pop every pushed mode
  '\x1b[>4m', // xterm modifyOtherKeys off
  '\x1b[4l\x1b[?6l\x1b[?7h', // insert mode off, origin mode off, autowrap on
  '\x1b[r', // no scroll region
  '\x1b(B', // G0 back to ASCII (no line-drawing characters)
  '\x1b[0m', // SGR reset, after the private sequences an old terminal might take for SGR
  '\x1b[?25h', // cursor shown
  '\x1b[H\x1b[2J', // home and clear
].join('');
