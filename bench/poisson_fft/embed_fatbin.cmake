# cmake -DBIN2C=... -DFATBIN=... -DNAME=... -DHEADER=... -P embed_fatbin.cmake
# Writes HEADER, a C array NAME holding the bytes of FATBIN (bin2c writes to stdout).
execute_process(COMMAND ${BIN2C} --name ${NAME} --type char ${FATBIN} OUTPUT_FILE ${HEADER}
                RESULT_VARIABLE status COMMAND_ERROR_IS_FATAL ANY)
