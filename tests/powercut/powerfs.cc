// powerfs: a FUSE file system for power-cut tests. It passes every call
// through to a backing directory (--live) and records, in DurableState
// (powerfs_state.h), what a disk would keep if the power failed now under
// Linux's worst-case rules: file data only once fsync/fdatasync (or an
// O_SYNC/O_DSYNC write) made it durable; a create, mkdir, unlink, rmdir,
// rename or link only once its parent directory (both, for a rename) was
// fsynced. Unmounting it IS the power cut: the daemon then rewrites --live
// to what the disk would hold (apply_cut) and exits 0, printing a one-line
// account on stderr. Mount again for the next "boot".
//
//   powerfs --live DIR --grave DIR [--tear] [--seed N] [--verbose] MOUNTPOINT [fuse options]
//   fusermount3 -u MOUNTPOINT      # the cut
//
// --grave: where unlinked and replaced inodes are kept until the cut (on
// the same file system as --live, outside it), so that an inode number
// always names one file and an unlink that was never made durable can be
// undone. --tear: a cut may also keep a random prefix of unsynced appends,
// ending in a torn (zero-filled) page, and unsynced directory changes.
//
// Thread rules: FUSE runs single-threaded (-s is always passed), so the
// state needs no lock. Not for production: a test tool.
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <fcntl.h>
#include <fuse.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "powerfs_state.h"

namespace {

struct Globals {
  std::string live, grave;
  powerfs::DurableState state;
  powerfs::CutMode mode;
  unsigned long buried = 0;
};
Globals g;

std::string backing(const char* path) { return g.live + path; }

std::string parent_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

int err() { return -errno; }

// The directory holding `path` is about to change.
void touch_parent(const char* path) {
  std::string dir = parent_of(backing(path));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) g.state.before_dir_change(st.st_ino, dir);
}

// Moves the backing object at `p` into the grave (its inode stays alive).
int bury(const std::string& p, bool by_link) {
  std::string to = g.grave + "/" + std::to_string(++g.buried);
  int rc = by_link ? ::link(p.c_str(), to.c_str()) : ::rename(p.c_str(), to.c_str());
  return rc == 0 ? 0 : err();
}

int op_getattr(const char* path, struct stat* st, fuse_file_info* fi) {
  int rc = fi ? ::fstat(static_cast<int>(fi->fh), st) : ::lstat(backing(path).c_str(), st);
  return rc == 0 ? 0 : err();
}

int op_access(const char* path, int mask) { return ::access(backing(path).c_str(), mask) == 0 ? 0 : err(); }

int op_readlink(const char* path, char* buf, size_t size) {
  ssize_t n = ::readlink(backing(path).c_str(), buf, size - 1);
  if (n < 0) return err();
  buf[n] = '\0';
  return 0;
}

int op_readdir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*, fuse_readdir_flags) {
  DIR* d = ::opendir(backing(path).c_str());
  if (!d) return err();
  while (dirent* e = ::readdir(d)) {
    struct stat st {};
    st.st_ino = e->d_ino;
    st.st_mode = static_cast<mode_t>(DTTOIF(e->d_type));
    if (fill(buf, e->d_name, &st, 0, static_cast<fuse_fill_dir_flags>(0))) break;
  }
  ::closedir(d);
  return 0;
}

int op_mkdir(const char* path, mode_t mode) {
  touch_parent(path);
  if (::mkdir(backing(path).c_str(), mode) != 0) return err();
  struct stat st {};
  if (::lstat(backing(path).c_str(), &st) == 0) g.state.created_dir(st.st_ino);
  return 0;
}

int op_unlink(const char* path) {
  touch_parent(path);
  return bury(backing(path), false);
}

int op_rmdir(const char* path) {
  if (!powerfs::list_dir(backing(path)).empty()) return -ENOTEMPTY;
  touch_parent(path);
  return bury(backing(path), false);
}

int op_symlink(const char* target, const char* path) {
  touch_parent(path);
  return ::symlink(target, backing(path).c_str()) == 0 ? 0 : err();
}

int op_link(const char* from, const char* to) {
  touch_parent(to);
  return ::link(backing(from).c_str(), backing(to).c_str()) == 0 ? 0 : err();
}

int op_rename(const char* from, const char* to, unsigned int flags) {
  touch_parent(from);
  touch_parent(to);
  std::string src = backing(from), dst = backing(to);
  struct stat ds {};
  if (flags == 0 && ::lstat(dst.c_str(), &ds) == 0) {
    // Keep the replaced inode: a cut before the directory fsync brings it back.
    if (S_ISDIR(ds.st_mode)) {
      if (!powerfs::list_dir(dst).empty()) return -ENOTEMPTY;
      if (int rc = bury(dst, false)) return rc;
    } else if (int rc = bury(dst, true)) {
      return rc;
    }
  }
  return ::renameat2(AT_FDCWD, src.c_str(), AT_FDCWD, dst.c_str(), flags) == 0 ? 0 : err();
}

int op_chmod(const char* path, mode_t mode, fuse_file_info*) {
  return ::chmod(backing(path).c_str(), mode) == 0 ? 0 : err();
}

int op_chown(const char* path, uid_t uid, gid_t gid, fuse_file_info*) {
  return ::lchown(backing(path).c_str(), uid, gid) == 0 ? 0 : err();
}

int op_utimens(const char* path, const timespec tv[2], fuse_file_info* fi) {
  if (fi) return ::futimens(static_cast<int>(fi->fh), tv) == 0 ? 0 : err();
  return ::utimensat(AT_FDCWD, backing(path).c_str(), tv, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : err();
}

// Truncates `fd` to `size`, recording what it cuts.
int truncate_fd(int fd, off_t size) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return err();
  g.state.before_truncate(st.st_ino, fd, st.st_size, size);
  return ::ftruncate(fd, size) == 0 ? 0 : err();
}

int op_truncate(const char* path, off_t size, fuse_file_info* fi) {
  if (fi) return truncate_fd(static_cast<int>(fi->fh), size);
  int fd = ::open(backing(path).c_str(), O_RDWR);
  if (fd < 0) return err();
  int rc = truncate_fd(fd, size);
  ::close(fd);
  return rc;
}

// Opens the backing file; O_TRUNC goes through truncate_fd (recorded),
// O_APPEND is left to the kernel (which passes the offset of each write).
int open_backing(const char* path, fuse_file_info* fi, int extra, mode_t mode) {
  // Write-only opens read too: a write saves the bytes it overwrites first.
  int flags = (fi->flags & ~(O_TRUNC | O_APPEND)) | extra;
  if ((flags & O_ACCMODE) == O_WRONLY) flags = (flags & ~O_ACCMODE) | O_RDWR;
  int fd = ::open(backing(path).c_str(), flags, mode);
  if (fd < 0) return err();
  if ((fi->flags & O_TRUNC) && (fi->flags & O_ACCMODE) != O_RDONLY) {
    if (int rc = truncate_fd(fd, 0)) {
      ::close(fd);
      return rc;
    }
  }
  fi->fh = static_cast<uint64_t>(fd);
  return 0;
}

int op_open(const char* path, fuse_file_info* fi) { return open_backing(path, fi, 0, 0); }

int op_create(const char* path, mode_t mode, fuse_file_info* fi) {
  struct stat st {};
  bool existed = ::lstat(backing(path).c_str(), &st) == 0;
  if (!existed) touch_parent(path);
  if (int rc = open_backing(path, fi, O_CREAT, mode)) return rc;
  if (!existed && ::fstat(static_cast<int>(fi->fh), &st) == 0) g.state.created_file(st.st_ino);
  return 0;
}

int op_read(const char*, char* buf, size_t size, off_t off, fuse_file_info* fi) {
  ssize_t n = ::pread(static_cast<int>(fi->fh), buf, size, off);
  return n < 0 ? err() : static_cast<int>(n);
}

int op_write(const char*, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  int fd = static_cast<int>(fi->fh);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return err();
  g.state.before_write(st.st_ino, fd, st.st_size, off, size);
  ssize_t n = ::pwrite(fd, buf, size, off);
  if (n < 0) return err();
  if (fi->flags & (O_SYNC | O_DSYNC)) g.state.synced_file(st.st_ino);
  return static_cast<int>(n);
}

int op_statfs(const char*, struct statvfs* sv) { return ::statvfs(g.live.c_str(), sv) == 0 ? 0 : err(); }

int op_release(const char*, fuse_file_info* fi) {
  ::close(static_cast<int>(fi->fh));
  return 0;
}

// fsync and fdatasync alike make the file's data and size durable, not its
// name (that takes the directory's fsync).
int op_fsync(const char*, int, fuse_file_info* fi) {
  struct stat st {};
  if (::fstat(static_cast<int>(fi->fh), &st) != 0) return err();
  g.state.synced_file(st.st_ino);
  return 0;
}

int op_fsyncdir(const char* path, int, fuse_file_info*) {
  struct stat st {};
  if (::lstat(backing(path).c_str(), &st) != 0) return err();
  g.state.synced_dir(st.st_ino);
  return 0;
}

int op_fallocate(const char*, int mode, off_t off, off_t len, fuse_file_info* fi) {
  int fd = static_cast<int>(fi->fh);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return err();
  if (mode != FALLOC_FL_KEEP_SIZE) g.state.before_write(st.st_ino, fd, st.st_size, off, static_cast<size_t>(len));
  return ::fallocate(fd, mode, off, len) == 0 ? 0 : err();
}

void* op_init(fuse_conn_info*, fuse_config* cfg) {
  cfg->hard_remove = 1;  // unlink of an open file: our unlink, no .fuse_hidden rename
  cfg->use_ino = 1;
  return nullptr;
}

fuse_operations make_ops() {
  fuse_operations o{};
  o.getattr = op_getattr;
  o.readlink = op_readlink;
  o.mkdir = op_mkdir;
  o.unlink = op_unlink;
  o.rmdir = op_rmdir;
  o.symlink = op_symlink;
  o.rename = op_rename;
  o.link = op_link;
  o.chmod = op_chmod;
  o.chown = op_chown;
  o.truncate = op_truncate;
  o.open = op_open;
  o.read = op_read;
  o.write = op_write;
  o.statfs = op_statfs;
  o.release = op_release;
  o.fsync = op_fsync;
  o.readdir = op_readdir;
  o.fsyncdir = op_fsyncdir;
  o.init = op_init;
  o.access = op_access;
  o.create = op_create;
  o.utimens = op_utimens;
  o.fallocate = op_fallocate;
  return o;
}

int usage() {
  std::fprintf(stderr,
               "usage: powerfs --live DIR --grave DIR [--tear] [--seed N] [--verbose] MOUNTPOINT [fuse options]\n");
  return 2;
}

// Whether `dir` is still a mount point (a line of /proc/self/mounts names it).
bool still_mounted(const std::string& dir) {
  char real[PATH_MAX];
  if (!::realpath(dir.c_str(), real)) return false;
  std::ifstream mounts("/proc/self/mounts");
  std::string device, point;
  while (mounts >> device >> point) {
    if (point == real) return true;
    mounts.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> fargs{argv[0], const_cast<char*>("-f"), const_cast<char*>("-s")};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--live" && has_value)
      g.live = argv[++i];
    else if (a == "--grave" && has_value)
      g.grave = argv[++i];
    else if (a == "--seed" && has_value)
      g.mode.seed = std::stoull(argv[++i]);
    else if (a == "--tear")
      g.mode.tear = true;
    else if (a == "--verbose")
      g.mode.verbose = true;
    else
      fargs.push_back(argv[i]);
  }
  if (g.live.empty() || g.grave.empty() || fargs.size() < 4) return usage();
  ::mkdir(g.grave.c_str(), 0755);
  fuse_operations ops = make_ops();
  int rc = fuse_main(static_cast<int>(fargs.size()), fargs.data(), &ops, nullptr);
  // An unmount while a dying process still had a request in flight can end
  // the loop with ECONNABORTED ("reading device: Software caused connection
  // abort", rc 8) instead of ENODEV. The file system is gone all the same and
  // the volatile layer is intact: the cut goes on.
  if (rc != 0 && still_mounted(fargs.back())) return rc;
  if (rc != 0) std::fprintf(stderr, "powerfs: the loop ended with %d at the unmount; cutting as usual\n", rc);
  try {
    std::fprintf(stderr, "powerfs: cut: %s\n", powerfs::apply_cut(g.state, g.live, g.grave, g.mode).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "powerfs: cut failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
