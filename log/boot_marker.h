// BootMarker: `<log dir>/.skiff_boot` holds the kernel's boot id
// (/proc/sys/kernel/random/boot_id) of the last broker that finished loading
// the dir. Found equal to the current boot id at the next start, it says the
// previous broker died as a process (kill -9, OOM kill, crash), not with the
// machine: the page cache kept every write that had returned, so recovery
// only needs to look at the end of each partition's last segment
// (LogLoadParams::same_boot). After a power cut or a kernel crash the boot
// id differs and recovery scans from the recovery point, as Kafka does.
//
// The marker is written after the logs are loaded (a broker killed while
// recovering leaves the old one) and never fsynced: a power cut that loses
// unsynced data loses it too, which only costs the next start a full
// recovery (this also holds for a test file system that drops unsynced
// writes without a reboot).
//
// File: the boot id text as read from /proc, nothing else.
// Threads: plain functions; callers serialise writes per dir.
#pragma once

#include <filesystem>
#include <string>

namespace skiff::storage {

inline constexpr char kBootMarkerFile[] = ".skiff_boot";

// This boot's id, "" when the kernel does not say (never matches).
std::string current_boot_id();
// True if `dir`'s marker names `boot_id` (and it is not empty).
bool marked_on_boot(const std::filesystem::path& dir, const std::string& boot_id);
// Writes the marker (best effort, not durable; a failure is logged).
void mark_boot(const std::filesystem::path& dir, const std::string& boot_id);

}  // namespace skiff::storage
