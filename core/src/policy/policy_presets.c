/*
 * policy_presets.c - the built-in presets (docs/policy.md "Presets"):
 * static tables, off unless a configuration names them.
 *
 *   vcs           what makes git read configuration or run a program:
 *                 hooks, config, info/, alternates (of the repository, its
 *                 worktrees and submodules), the pointers git follows
 *                 (.git files, HEAD, commondir, gitdir; validated by
 *                 content in commands), hook managers' files
 *   secrets       credentials no agent should read
 *   agent-config  files an agent host or editor reads as instructions or
 *                 runs: MCP and editor configuration, shell start-up files
 *   vcs-history   the objects of every repository (history may hold secrets)
 */
#include <string.h>

#include "pathgate/policy.h"
#include "policy_presets.h"

#define W PATHGATE_POLICY_DENY_WRITE
#define R PATHGATE_POLICY_DENY_READ

/* Pointers first (a rule later in a list wins where both match): the
 * names git follows to find a repository, its git directory and its
 * configuration. Protected from file operations; in a command's view they
 * stay writable (commit, checkout and `git worktree add` write them) and
 * are validated by content when the command ends (exec_policy.c). */
static const char *const vcs_rules[] = {
    ".git",
    "HEAD",
    "**/.git/commondir",
    "**/.git/worktrees/*/commondir",
    "**/.git/worktrees/*/gitdir",
    "**/.git/modules/**/commondir",
    /* read-only everywhere: what git reads as configuration or runs */
    "**/.git/hooks/",
    "**/.git/config",
    "**/.git/config.worktree",
    "**/.git/info/{attributes,exclude,sparse-checkout,grafts}",
    "**/.git/objects/info/alternates",
    "**/.git/worktrees/*/config",
    "**/.git/worktrees/*/config.worktree",
    "**/.git/modules/**/hooks/",
    "**/.git/modules/**/config",
    "**/.git/modules/**/config.worktree",
    "**/.git/modules/**/info/{attributes,exclude,sparse-checkout,grafts}",
    "**/.git/modules/**/objects/info/alternates",
    ".gitmodules",
    ".gitconfig",
    /* hook managers: the hooks git runs are ordinary files of the tree */
    ".husky/",
    ".githooks/",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook-local.yml",
    ".lefthook-local.yml",
    ".simple-git-hooks*",
};
#define S (W | PATHGATE__PRESET_SELF)
static const unsigned char vcs_denies[] = {S, S, W, W, W, W, W, W, W, W, W, W, W, W,
                                           W, W, W, W, W, W, W, W, W, W, W, W, W, W};
#undef S

/* The pointer rules above (their index) and what each must hold. */
static const struct {
    const char *rule;
    int kind;
} vcs_pointers[] = {
    {".git", PATHGATE__PTR_DOTGIT},
    {"HEAD", PATHGATE__PTR_HEAD},
    {"**/.git/commondir", PATHGATE__PTR_COMMONDIR},
    {"**/.git/worktrees/*/commondir", PATHGATE__PTR_COMMONDIR},
    {"**/.git/worktrees/*/gitdir", PATHGATE__PTR_GITDIR},
    {"**/.git/modules/**/commondir", PATHGATE__PTR_COMMONDIR},
};

/* History: every object a repository holds, for where a secret was once
 * committed (docs/policy.md "Secrets in git history"). */
static const char *const history_rules[] = {
    "**/.git/objects/",
    "**/.git/modules/**/objects/",
};
static const unsigned char history_denies[] = {R, R};

static const char *const secrets_rules[] = {
    ".env",        ".env.*", "*.pem",   "*.key",  "id_rsa*",          "id_dsa*", "id_ecdsa*",
    "id_ed25519*", ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".pgpass",
};
static const unsigned char secrets_denies[] = {R, R, R, R, R, R, R, R, R, R, R, R, R};

static const char *const agent_rules[] = {
    ".mcp.json",       ".vscode/",         ".idea/",         ".claude/",
    ".codex/",         ".cursor/",         ".envrc",         ".ripgreprc",
    ".bashrc",         ".bash_profile",    ".bash_login",    ".bash_logout",
    ".profile",        ".zshrc",           ".zshenv",        ".zprofile",
    ".zlogin",         ".zlogout",         ".cshrc",         ".tcshrc",
    ".kshrc",          "**/.config/fish/", ".devcontainer/", ".devcontainer.json",
    ".zed/",           ".gemini/",         ".windsurf/",     ".continue/",
    ".aider.conf.yml",
};
static const unsigned char agent_denies[] = {W, W, W, W, W, W, W, W, W, W, W, W, W, W, W,
                                             W, W, W, W, W, W, W, W, W, W, W, W, W, W};

#undef W
#undef R

typedef struct preset {
    const char *name;
    const char *source;
    const char *const *rules;
    const unsigned char *denies;
    size_t n;
} preset;

#define COUNT(a) (sizeof(a) / sizeof *(a))
_Static_assert(COUNT(vcs_rules) == COUNT(vcs_denies), "vcs");
_Static_assert(COUNT(secrets_rules) == COUNT(secrets_denies), "secrets");
_Static_assert(COUNT(agent_rules) == COUNT(agent_denies), "agent-config");
_Static_assert(COUNT(history_rules) == COUNT(history_denies), "vcs-history");

static const preset presets[] = {
    {"vcs", "preset:vcs", vcs_rules, vcs_denies, COUNT(vcs_rules)},
    {"secrets", "preset:secrets", secrets_rules, secrets_denies, COUNT(secrets_rules)},
    {"agent-config", "preset:agent-config", agent_rules, agent_denies, COUNT(agent_rules)},
    {"vcs-history", "preset:vcs-history", history_rules, history_denies, COUNT(history_rules)},
};

int pathgate__preset_pointer(const pathgate_policy_verdict *v)
{
    if (!v || !v->source || !v->rule || strcmp(v->source, "preset:vcs") != 0)
        return PATHGATE__PTR_NONE;
    for (size_t i = 0; i < COUNT(vcs_pointers); i++)
        if (strcmp(v->rule, vcs_pointers[i].rule) == 0)
            return vcs_pointers[i].kind;
    return PATHGATE__PTR_NONE;
}

int pathgate__preset_find(const char *name, size_t len, const char *const **rules,
                          const unsigned char **denies_of, size_t *n, const char **source)
{
    for (size_t i = 0; i < COUNT(presets); i++) {
        if (strlen(presets[i].name) == len && memcmp(presets[i].name, name, len) == 0) {
            *rules = presets[i].rules;
            *denies_of = presets[i].denies;
            *n = presets[i].n;
            *source = presets[i].source;
            return 1;
        }
    }
    return 0;
}

const char *pathgate_policy_preset_name(size_t index)
{
    return index < COUNT(presets) ? presets[index].name : NULL;
}

const char *pathgate_policy_preset_rule(const char *name, size_t index, unsigned int *denies)
{
    const char *const *rules;
    const unsigned char *of;
    size_t n;
    const char *source;
    if (!name || !pathgate__preset_find(name, strlen(name), &rules, &of, &n, &source) || index >= n)
        return NULL;
    if (denies)
        *denies = of[index] & ~PATHGATE__PRESET_SELF;
    return rules[index];
}
