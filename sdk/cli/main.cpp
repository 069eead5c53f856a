#include <cstdio>
#include "modelexport/modelexport.h"
int main() { std::printf("modelexport %s\n", mx_version_string()); return 0; }
