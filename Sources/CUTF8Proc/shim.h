#pragma once
#include <utf8proc.h>
