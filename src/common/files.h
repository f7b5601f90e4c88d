// Files and directories that hold hop's state, created private to their owner whatever the
// process's umask (ARCHITECTURE.md §4.16): directories 0700, files 0600. The state directory
// holds the store, job logs and history, any of which may hold secrets.
#pragma once

#include <string>

#include "common/status.h"

namespace hop {

// Creates `dir` and its missing parents; each directory created here gets mode 0700. Existing
// directories are left as they are. OK if `dir` exists (as a directory) afterwards.
Status CreatePrivateDirectories(const std::string& dir);

// open(2) of `path` with `flags` | O_CREAT | O_CLOEXEC; a file it creates gets mode 0600, and
// an existing file is set to 0600 too (it is hop's own). The descriptor, or -1 with errno set.
int OpenPrivateFile(const std::string& path, int flags);

// Sets `path` to mode 0600 if it exists. For files another library creates (SQLite's).
void MakePrivate(const std::string& path);

}  // namespace hop
