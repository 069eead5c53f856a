// A Derivation as a frontend's answer carries it (docs/plugin-protocol.md,
// "derived_references"): two extra entries of an external tensor's
// external_data, beside location/offset/length, which then name the
// source bytes the host derives the tensor from as it writes the output.
// They never reach a saved file: the host writes derived bytes there.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mx::common {

// ONNX Transpose's perm, as decimal integers joined by ',': "1,0".
inline constexpr const char* kPermutationKey = "modelexport_permutation";
// One float32 per slice of dim 0, C99 hexadecimal floats ("%a", exact)
// joined by ',': "0x1.8p+0,0x1p-1".
inline constexpr const char* kChannelScaleKey = "modelexport_channel_scale";

std::string permutation_text(const std::vector<int64_t>& perm);
std::string channel_scale_text(const std::vector<float>& scale);

// nullopt on anything but the forms above (no spaces, no empty items).
std::optional<std::vector<int64_t>> parse_permutation(std::string_view text);
std::optional<std::vector<float>> parse_channel_scale(std::string_view text);

}  // namespace mx::common
