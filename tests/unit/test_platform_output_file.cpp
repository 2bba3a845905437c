// `--output FILE` never destroys what it is pointed at (issue 17, item 1): a device stays
// a device, a FIFO is written through (and refused, not waited on forever, without a
// reader), /dev/stdout and /dev/fd/N mean the descriptor, a regular file is replaced
// atomically (through a symlink, which stays), and everything else is refused with one
// line and exit 2, untouched.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <thread>

#include "support/cli.hpp"

using namespace amdml::test;

namespace {

// A clean fixture machine: doctor exits 0 and prints a known first line.
const std::string kMachine = "rdna2-dgpu";

CliRun doctor_to(const std::string& out, const std::string& extra = "", const std::string& format = "text") {
  return shell_run(amdml_command({"--root", fixture(kMachine), "--color", "never", "doctor", "--format", format, "-o", out},
                                 extra));
}

std::string doctor_stdout() {
  return shell_run(amdml_command({"--root", fixture(kMachine), "--color", "never", "doctor"})).out;
}

mode_t type_of(const std::string& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

// Refused: exit 2, nothing on stdout, one `amdml: error: --output PATH: ...` line.
void expect_refused(const CliRun& r, const std::string& path, const std::string& why) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("amdml: error: --output " + path + ": ")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
}

}  // namespace

TEST(OutputFile, CharacterDeviceStaysADevice) {
  TestTree t;
  std::string dev = t.real("null");
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod: " << std::strerror(errno);
  CliRun r = doctor_to(dev);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(type_of(dev), S_IFCHR);
  struct stat st {};
  ASSERT_EQ(::stat(dev.c_str(), &st), 0);
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  // Nothing else appeared beside it (no temporary file left behind).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(t.root()), std::filesystem::directory_iterator()), 1);
}

TEST(OutputFile, FifoWithAReaderGetsTheReport) {
  TestTree t;
  std::string fifo = t.real("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  // The reader is there before amdml starts and gives up after 30 s, so a writer that
  // never writes fails the test instead of hanging it.
  int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::thread reader([&] {
    char buf[4096];
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) got.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 && (p.revents & POLLHUP)) break;
    }
    ::close(fd);
  });
  CliRun r = doctor_to(fifo);
  reader.join();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(type_of(fifo), S_IFIFO);
  EXPECT_EQ(got, doctor_stdout());
  EXPECT_FALSE(got.empty());
}

TEST(OutputFile, FifoWithoutAReaderIsRefusedNotWaitedOn) {
  TestTree t;
  std::string fifo = t.real("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  CliRun r = doctor_to(fifo, "", "json");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("a FIFO that no process is reading"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_LT(took, std::chrono::seconds(20));
  EXPECT_EQ(type_of(fifo), S_IFIFO);
}

TEST(OutputFile, SymlinkToDevStdoutWritesToStdout) {
  TestTree t;
  std::string link = t.real("out");
  ASSERT_EQ(::symlink("/dev/stdout", link.c_str()), 0);
  CliRun r = doctor_to(link);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, doctor_stdout());
  EXPECT_EQ(type_of(link), S_IFLNK);
  EXPECT_EQ(std::filesystem::read_symlink(link), "/dev/stdout");
}

TEST(OutputFile, DevStdoutAndDevFdAreTheDescriptors) {
  TestTree t;
  std::string expected = doctor_stdout();
  CliRun r = doctor_to("/dev/stdout");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  // Through descriptor 3 opened for appending: appended, not started over.
  std::string file = t.real("appended");
  t.write("appended", "first line\n");
  r = doctor_to("/dev/fd/3", "3>>" + sh_quote(file));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(file), "first line\n" + expected);
  // A descriptor that is not open is a one-line error.
  r = doctor_to("/dev/fd/9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("descriptor 9 is not open"), std::string::npos) << r.err;
}

TEST(OutputFile, DirectoryIsRefusedAndUntouched) {
  TestTree t;
  std::string dir = t.real("reports");
  t.mkdir("reports");
  expect_refused(doctor_to(dir), dir, "is a directory");
  expect_refused(doctor_to(dir, "", "json"), dir, "is a directory");
  EXPECT_EQ(type_of(dir), S_IFDIR);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(OutputFile, SocketBlockDeviceAndDanglingLinkAreRefused) {
  TestTree t;
  std::string sock = t.real("sock");
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  expect_refused(doctor_to(sock), sock, "is a socket");
  EXPECT_EQ(type_of(sock), S_IFSOCK);
  ::close(fd);

  std::string dangling = t.real("dangling");
  ASSERT_EQ(::symlink(t.real("nowhere").c_str(), dangling.c_str()), 0);
  expect_refused(doctor_to(dangling), dangling, "a symlink to a file that does not exist");
  EXPECT_EQ(type_of(dangling), S_IFLNK);
  EXPECT_FALSE(std::filesystem::exists(t.real("nowhere")));

  std::string blk = t.real("loop");
  if (::mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) GTEST_SKIP() << "mknod: " << std::strerror(errno);
  expect_refused(doctor_to(blk), blk, "is a block device");
  EXPECT_EQ(type_of(blk), S_IFBLK);
}

TEST(OutputFile, ProcFileSaysWhatItIs) {
  std::string before = read_file("/proc/version");
  CliRun r = doctor_to("/proc/version");
  expect_refused(r, "/proc/version", "a kernel interface on the proc filesystem");
  EXPECT_EQ(r.err.find("No such file"), std::string::npos) << r.err;
  EXPECT_EQ(read_file("/proc/version"), before);
}

TEST(OutputFile, RegularFileIsReplacedAndASymlinkToItStays) {
  TestTree t;
  std::string expected = doctor_stdout();
  std::string file = t.real("report.txt");
  t.write("report.txt", "old report, much longer than the new one would ever be ............................\n"
                        "............................................................................................\n"
                        "............................................................................................\n"
                        "............................................................................................\n");
  ::chmod(file.c_str(), 0640);
  CliRun r = doctor_to(file);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(file), expected);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);  // the file keeps its mode

  std::string link = t.real("latest");
  ASSERT_EQ(::symlink("report.txt", link.c_str()), 0);
  t.write("report.txt", "stale\n");
  r = doctor_to(link);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(type_of(link), S_IFLNK);
  EXPECT_EQ(read_file(file), expected);

  // A path that does not exist yet is created.
  std::string fresh = t.real("new.json");
  r = doctor_to(fresh, "", "json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(type_of(fresh), S_IFREG);
  EXPECT_TRUE(read_file(fresh).starts_with("{"));
}

// Every command with --output shares the writer: info, check and report too.
TEST(OutputFile, EveryCommandRefusesADirectory) {
  TestTree t;
  std::string dir = t.real("d");
  t.mkdir("d");
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"info", "--no-runtime"}, {"check", "--no-runtime"}, {"report", "--no-runtime"}}) {
    std::vector<std::string> args = {"--root", fixture(kMachine), "--color", "never"};
    args.insert(args.end(), cmd.begin(), cmd.end());
    args.insert(args.end(), {"-o", dir});
    CliRun r = shell_run(amdml_command(args));
    expect_refused(r, dir, "is a directory");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}
