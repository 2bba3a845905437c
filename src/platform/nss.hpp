// The groups the name service switch gives a user: /etc/group and whatever else
// nsswitch.conf names (sssd, LDAP, winbind, systemd-userdb). A login session gets its
// supplementary groups from here (initgroups), so a user can be in `render` through a
// directory service while /etc/group does not list them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amdml::platform {

struct NssGroup {
  std::uint32_t gid = 0;
  std::string name;  // "" when NSS names no group for the gid
};

// getgrouplist(user, gid) with a name for each gid (getgrgid_r); nullopt when NSS does
// not answer for the user. Live machine only: rooted hosts read the manifest instead.
std::optional<std::vector<NssGroup>> nss_user_groups(const std::string& user, std::uint32_t gid);

}  // namespace amdml::platform
