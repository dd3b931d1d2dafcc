import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { detectDialog } from './dialog-structure.js';

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
