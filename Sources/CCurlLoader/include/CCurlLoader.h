/* CCurlLoader has no API of its own: hearth_curl_load() and the table it fills are declared
   in CCurl's shim.h, which the Swift code imports. */
