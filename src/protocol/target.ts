/**
 * `.target.md`: the template `autodeck new` writes and the test that tells a filled target
 * from a template (a loop starts only once `.target.md` is filled). Both live here so they cannot drift:
 * the template is made only of lines `isTemplateLine` passes over.
 */

export interface TargetSection {
  heading: string;
  /** One line of guidance, written as an HTML comment: it counts as template. */
  guidance: string;
}

export const TARGET_SECTIONS: readonly TargetSection[] = [
  { heading: 'Goal', guidance: 'What should be true when this task is done: the outcome, in a few sentences.' },
  { heading: 'Acceptance criteria', guidance: 'How to tell it is done: one bullet per check (a test that passes, a command and its output, a behaviour).' },
  { heading: 'Notes', guidance: 'Optional: constraints, pointers to code or docs, things to avoid.' },
];

const TEMPLATE_INTRO = 'Replace the comments with your own text. autodeck starts no loop on a draft whose target says nothing beyond this template.';

/** An HTML comment holding `text` (a `--` inside would end it early: it becomes `-`). */
function comment(text: string): string {
  return `<!-- ${text.replace(/-{2,}/g, '-')} -->`;
}

/** The `.target.md` of a new module. `title` is one line (checked by the caller). */
export function targetTemplate(title: string): string {
  const parts = [`# ${title}`, '', comment(TEMPLATE_INTRO)];
  for (const { heading, guidance } of TARGET_SECTIONS) parts.push('', `## ${heading}`, '', comment(guidance));
  return `${parts.join('\n')}\n`;
}

const HTML_COMMENT = /<!--[\s\S]*?-->/g;

/**
 * A line (HTML comments already removed) that says nothing by itself: blank, a heading,
 * an empty bullet or checkbox, a bare placeholder (`TODO`, `TBD`, `...`, `<goal>`).
 */
export function isTemplateLine(raw: string): boolean {
  const line = raw.trim();
  if (line === '' || line.startsWith('#')) return true;
  if (/^[-*+]\s*(\[[ x]\])?\s*$/i.test(line)) return true; // an empty bullet or checkbox
  if (/^(todo|tbd|\.\.\.|…)$/i.test(line)) return true;
  if (/^[-*+]?\s*<[^>]*>\s*$/.test(line)) return true; // a <placeholder>
  return false;
}

/** Whether `.target.md` says something beyond a template: one line that is not template. */
export function targetHasContent(text: string): boolean {
  return text.replace(HTML_COMMENT, '').split(/\r?\n/).some((line) => !isTemplateLine(line));
}
