"""The play mat: markers, table homography, player zones, camera intrinsics."""
