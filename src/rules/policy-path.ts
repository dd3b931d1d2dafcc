/** Where the default policy is: apart from the rules' loaders, so a CLI verb that only names it loads no YAML parser. */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The policy used when none is named: `policy.yaml` in the rules folder, else one that answers nothing. */
export function defaultPolicyPath(rulesPath: string): string | null {
  const isDir = existsSync(rulesPath) && statSync(rulesPath).isDirectory();
  const candidate = isDir ? join(rulesPath, 'policy.yaml') : null;
  return candidate && existsSync(candidate) ? candidate : null;
}
