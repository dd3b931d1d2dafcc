import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { detectDialog } from './dialog-structure.js';
import { Screen } from '../screen/screen.js';

// Verbatim: the headless screen of `whiptail --yesno 'Deploy the new schema to staging?' 10 60` (100×30).
const WHIPTAIL = `
                    ┌──────────────────────────────────────────────────────────┐
                    │                                                          │
                    │ Deploy the new schema to staging?                        │
                    │                                                          │
                    │                                                          │
                    │               <Yes>                  <No>                │
                    │                                                          │
                    └──────────────────────────────────────────────────────────┘`;

// Verbatim: `dialog --menu 'Pick a target' 15 50 4 1 staging 2 production 3 local` (the selection is reverse video only).
const DIALOG_MENU = `
                        ┌────────────────────────────────────────────────┐
                        │ Pick a target                                  │
                        │ ┌────────────────────────────────────────────┐ │
                        │ │               1  staging                   │ │
                        │ │               2  production                │ │
                        │ │               3  local                     │ │
                        │ └────────────────────────────────────────────┘ │
                        ├────────────────────────────────────────────────┤
                        │           <  OK  >      <Cancel>               │
                        └────────────────────────────────────────────────┘`;

// fzf over three lines (read back from its recording): items, count line, prompt at the bottom.
const FZF = `
  gamma
  beta
> alpha
  3/3 ─────────────────────────────────────────
>`;

const at = (text: string) => detectDialog(snapshotOf(text, { cursor: { x: 0, y: 0 } }));

describe('detectDialog: dialogs no rule names', () => {
  it.each([
    ['whiptail --yesno', WHIPTAIL, 'buttons'],
    ['dialog --menu', DIALOG_MENU, 'buttons'],
    ['fzf', FZF, 'picker'],
    ['less at (END)', 'line 98\nline 99\nline 100\n(END)', 'pager'],
    ['less at the end of a short file (verbatim)', 'release notes\n- fixed the retry loop\n- faster start\n/tmp/tmp.D9o2PTvE5o/notes.txt (END)', 'pager'],
    ['more', 'line 1\nline 2\n--More--(42%)', 'pager'],
    ['an inquirer-style menu', 'Deploying…\n? Pick a target (Use arrow keys)\n❯ staging\n  production\n  local', 'menu'],
    ['a menu with a key-hint footer', ' Select a model\n › Opus 4.6\n   Sonnet 4.6\n   Haiku 4.5\n\n Enter to confirm · Esc to cancel', 'menu'],
  ])('%s is a %s', (_what, screen, kind) => {
    expect(at(screen)?.kind).toBe(kind);
  });

  it.each([
    ['an agent idle at its input box with a status line', '● Done. I created notes.md.\n\n────────────────────\n❯ \n────────────────────\n  ? for shortcuts'],
    ['a numbered list in prose above the input box', '● Here is the plan:\n  1. Add the migration\n  2. Run the tests\n\n────────────\n❯ \n────────────'],
    ['a working screen with a numbered plan and a progress bar', 'Plan:\n1. fetch\n2. build\n3. test\n[#######-------] 52%'],
    ['a menu quoted in output that scrolled on', '? Pick a target (Use arrow keys)\n❯ staging\n  production\nUsing staging from the config file.\nDeploying 3 services…'],
    ['streaming prose', 'The dialog offers <Yes> and <No> buttons; we pick yes by default,\nso the script continues with the upgrade and prints its log.\nupgrading 3 packages'],
    ['two marked rows (an agent transcript)', '● I will run the command.\n● Bash(touch made.txt)'],
  ])('%s is not', (_what, screen) => {
    expect(at(screen)).toBeUndefined();
  });
});

describe('detectDialog: a selection shown only by its highlight (cell attributes)', () => {
  const shown = async (ansi: string) => {
    const screen = new Screen(60, 12);
    await screen.write(ansi.replace(/\n/g, '\r\n'));
    const snap = screen.snapshot();
    screen.dispose();
    return detectDialog(snap);
  };
  const INV = (t: string) => `\x1b[7m${t}\x1b[27m`;
  const BG = (t: string) => `\x1b[44;37m${t}\x1b[0m`;

  it.each([
    ['reverse video', `Pick a target\n   ${INV('1  staging')}\n   2  production\n   3  local`],
    ['a background on one row of a coloured box', `\x1b[47;30mPick a target\n   ${BG('1  staging')}\x1b[47;30m\n   2  production\n   3  local\x1b[0m`],
    ['two choices, the second highlighted', `Deploy now\n   Yes\n   ${INV('No ')}`],
  ])('a menu: %s', async (_what, ansi) => {
    expect((await shown(ansi))?.kind).toBe('menu');
  });

  it.each([
    ['text colour alone (ls --color marking a directory)', `total 3\nnotes.txt\n\x1b[34msrc\x1b[0m\nREADME.md`],
    ['zebra rows (two highlights in turn)', `Results\n${INV('row one')}\nrow two\n${INV('row three')}\nrow four`],
    ['no title above the highlighted rows', `   ${INV('1  staging')}\n   2  production`],
    ['the same rows without attributes', `Pick a target\n   1  staging\n   2  production\n   3  local`],
  ])('not a menu: %s', async (_what, ansi) => {
    expect(await shown(ansi)).toBeUndefined();
  });
});

describe('detectDialog: rows under a menu\'s hint footer', () => {
  const MENU = 'Pick a task\n❯ build\n  test\n  deploy\n\n↑/↓ move · enter select · q quit';

  it.each([
    ['a blinking marker', '◆ waiting'],
    ['a status line and a timer', 'status: idle\nelapsed 00:12'],
    ['a spinner', '⠹ connecting'],
  ])('a menu with %s under its footer; the dialog is read down to the footer', (_what, under) => {
    expect(at(`${MENU}\n${under}`)).toEqual({ kind: 'menu', text: 'Pick a task\n❯ build\ntest\ndeploy\n↑/↓ move · enter select · q quit' });
  });

  it.each([
    ['three rows under the footer', `${MENU}\none\ntwo\nthree`],
    ['a marked row under the footer (a choice, not a status line)', `${MENU}\n❯ other`],
    ['a numbered list in prose with a hint line and prose under it', 'Steps:\n1. build\n2. test\nUse ↑/↓ to scroll\nDone.'],
  ])('not a menu: %s', (_what, text) => {
    expect(at(text)).toBeUndefined();
  });
});
