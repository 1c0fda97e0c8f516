/*
 * policy_presets.c - the built-in presets (docs/policy.md "Presets"):
 * static tables, off unless a configuration names them.
 *
 *   vcs           what makes a repository run code: hooks and config
 *                 (of the repository, its worktrees and submodules),
 *                 .gitmodules, .gitconfig; objects, refs, the index and
 *                 worktree gitdirs stay writable
 *   secrets       credentials no agent should read
 *   agent-config  files an agent host or editor reads as instructions or
 *                 runs: MCP and editor configuration, shell start-up files
 */
#include <string.h>

#include "pathgate/policy.h"
#include "policy_presets.h"

#define W PATHGATE_POLICY_DENY_WRITE
#define R PATHGATE_POLICY_DENY_READ

static const char *const vcs_rules[] = {
    "**/.git/hooks/",
    "**/.git/config",
    "**/.git/config.worktree",
    "**/.git/worktrees/*/config.worktree",
    "**/.git/modules/**/hooks/",
    "**/.git/modules/**/config",
    "**/.git/modules/**/config.worktree",
    ".gitmodules",
    ".gitconfig",
};
static const unsigned char vcs_denies[] = {W, W, W, W, W, W, W, W, W};

static const char *const secrets_rules[] = {
    ".env",        ".env.*", "*.pem",   "*.key",  "id_rsa*",          "id_dsa*", "id_ecdsa*",
    "id_ed25519*", ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".pgpass",
};
static const unsigned char secrets_denies[] = {R, R, R, R, R, R, R, R, R, R, R, R, R};

static const char *const agent_rules[] = {
    ".mcp.json", ".vscode/",   ".idea/",  ".claude/",         ".codex/",     ".cursor/",
    ".envrc",    ".ripgreprc", ".bashrc", ".bash_profile",    ".bash_login", ".bash_logout",
    ".profile",  ".zshrc",     ".zshenv", ".zprofile",        ".zlogin",     ".zlogout",
    ".cshrc",    ".tcshrc",    ".kshrc",  "**/.config/fish/",
};
static const unsigned char agent_denies[] = {W, W, W, W, W, W, W, W, W, W, W,
                                             W, W, W, W, W, W, W, W, W, W, W};

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

static const preset presets[] = {
    {"vcs", "preset:vcs", vcs_rules, vcs_denies, COUNT(vcs_rules)},
    {"secrets", "preset:secrets", secrets_rules, secrets_denies, COUNT(secrets_rules)},
    {"agent-config", "preset:agent-config", agent_rules, agent_denies, COUNT(agent_rules)},
};

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
        *denies = of[index];
    return rules[index];
}
