# The Debian package: `cpack -G DEB` in the build directory (tbbt_VERSION_ARCH.deb),
# installable with `apt-get install ./tbbt_*.deb`. The libraries the
# programs link are found by dpkg-shlibdeps; the programs the commands run
# are named here: tcpdump (tbbt-capture), zstd (its rotated files), gnuplot
# (tbbt-report's plots), perl with its core modules (the Perl commands:
# Getopt::Long, Pod::Usage, JSON::PP, Digest::SHA, File::Temp are all in
# Debian's perl). Recommended: ethtool (tbbt-capture's offload check) and
# e2fsprogs (tbbt-layout's free-space and inode figures on ext4); suggested:
# xfsprogs (tbbt-layout on XFS), openmpi-bin (tbbt-play under mpirun) and
# nfs-ganesha (a local server to try things on).
set(CPACK_PACKAGE_NAME tbbt)
set(CPACK_PACKAGE_VENDOR "tbbt developers")
set(CPACK_PACKAGE_CONTACT "tbbt developers <dev@tbbt.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NFS trace capture, aging and replay (TBBT)")
set(CPACK_PACKAGE_DESCRIPTION
    "tbbt turns a packet capture of a site's NFSv2/v3 traffic into a faithful, scalable load on
any NFS server: tbbt-prep decodes and corrects the capture, tbbt-init builds and ages the
trace's initial file-system image on the server, tbbt-play replays the trace in file-system
dependency or conservative order, at the traced pace or faster, and tbbt-report and
tbbt-compare set the servers' throughput and latency side by side.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://tbbt.invalid/")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "perl, tcpdump, zstd, gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ethtool, e2fsprogs, man-db")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "xfsprogs, openmpi-bin, nfs-ganesha, nfs-ganesha-vfs")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
include(CPack)
