// Host main for the sample executables; the tests only read their files.
int main() { return 0; }
