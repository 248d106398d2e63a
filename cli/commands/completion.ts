import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { loadHelpIndex } from '../../lib/generated.js';
import { buildProgram } from '../program.js';
import { usage } from './message-common.js';

/** One node of the command tree: the words that may follow it and its options. */
interface Node {
  readonly path: string;
  readonly children: readonly string[];
  readonly options: readonly string[];
}

const EXEC_FLAGS = ['--help', '--input-schema', '--output-schema', '--error-schema'];

/**
 * The command tree, from the commander program as declared (cli/program.ts,
 * the operator reads included) and, below `exec`, the catalog's domains and
 * actions as the build indexed them (dist/generated/help-index.json).
 */
async function commandTree(): Promise<Node[]> {
  const commander = createRequire(import.meta.url)('commander') as typeof import('commander');
  const program = buildProgram(commander, async () => undefined);
  const out: Node[] = [];
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
    const options = cmd.options.flatMap((o) =>
      [o.long, o.short].filter((x): x is string => typeof x === 'string'),
    );
    out.push({ path, children: subs, options: [...options, '--help'] });
    // exec has its own grammar; its words come from the catalog below.
    for (const c of cmd.commands)
      if (c.name() !== 'exec') walk(c, path ? `${path} ${c.name()}` : c.name());
  };
  walk(program, '');
  const index = await loadHelpIndex();
  out.push({ path: 'exec', children: index.domains.map((d) => d.domain), options: EXEC_FLAGS });
  for (const d of index.domains) {
    out.push({
      path: `exec ${d.domain}`,
      children: d.actions.map((a) => a.action),
      options: EXEC_FLAGS,
    });
    for (const a of d.actions)
      out.push({
        path: `exec ${d.domain} ${a.action}`,
        children: [],
        options: [...EXEC_FLAGS, '-'],
      });
  }
  return out;
}

/** Names are plain words (commander names, catalog names): nothing to quote, but refuse anything else. */
const WORD = /^[A-Za-z0-9][A-Za-z0-9._-]*$|^--?[A-Za-z0-9][A-Za-z0-9-]*$|^-$/;

function table(nodes: readonly Node[]): string {
  const lines: string[] = [];
  const words = (ws: readonly string[]) => {
    for (const w of ws)
      if (!WORD.test(w)) throw new Error(`cannot complete the word ${JSON.stringify(w)}`);
    return ws.join(' ');
  };
  lines.push('# The words that may follow a command path ($1), then its options.');
  lines.push('_agentteam_children() {', '  case "$1" in');
  for (const n of nodes)
    lines.push(`    ${JSON.stringify(n.path)}) echo ${JSON.stringify(words(n.children))} ;;`);
  lines.push('  esac', '}', '_agentteam_options() {', '  case "$1" in');
  for (const n of nodes)
    lines.push(`    ${JSON.stringify(n.path)}) echo ${JSON.stringify(words(n.options))} ;;`);
  lines.push('  esac', '}');
  // Shared by both shells: the command path is the run of words, from the first,
  // each a child of the path before it; option values and arguments end no path.
  // A word that is neither an option nor a child of a path that has children
  // (\`agentteam nosuch\`) leads nowhere: "!" has no children and no options.
  lines.push(
    '_agentteam_path() {',
    '  local p="" w c cs found',
    '  for w in "$@"; do',
    '    cs="$(_agentteam_children "$p")"',
    '    found=""',
    // A command substitution, not $cs: zsh does not split an unquoted parameter.
    '    for c in $(_agentteam_children "$p"); do',
    '      if [ "$c" = "$w" ]; then found=1; break; fi',
    '    done',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    '    if [ -n "$found" ]; then p="${p:+$p }$w"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    '    elif [ -n "$cs" ] && [ "${w#-}" = "$w" ]; then p="!"',
    '    fi',
    '  done',
    '  echo "$p"',
    '}',
  );
  return lines.join('\n');
}

function bash(nodes: readonly Node[]): string {
  return `# agentteam completion for bash: source <(agentteam completion bash)
${table(nodes)}
_agentteam() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local path
  path="$(_agentteam_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  local words
  if [[ "$cur" == -* ]]; then words="$(_agentteam_options "$path")"; else words="$(_agentteam_children "$path")"; fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -F _agentteam agentteam
`;
}

function zsh(nodes: readonly Node[]): string {
  return `#compdef agentteam
# agentteam completion for zsh: source <(agentteam completion zsh), or save as _agentteam on $fpath
${table(nodes)}
_agentteam() {
  local cur="\${words[CURRENT]}"
  local p
  p="$(_agentteam_path "\${(@)words[2,CURRENT-1]}")"
  local -a cands
  if [[ "$cur" == -* ]]; then cands=(\${=$(_agentteam_options "$p")}); else cands=(\${=$(_agentteam_children "$p")}); fi
  compadd -- $cands
}
if (( $+functions[compdef] )); then compdef _agentteam agentteam; fi
`;
}

/** `agentteam completion bash|zsh`: prints the script on stdout. */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const shell = args[0];
  if (shell !== 'bash' && shell !== 'zsh') {
    return usage('completion', 'the shell must be bash or zsh');
  }
  const nodes = await commandTree();
  process.stdout.write(shell === 'bash' ? bash(nodes) : zsh(nodes));
  return 0;
}
