/// \file
/// The NVML ABI (libnvidia-ml.so.1, NVML API version 13) as ferry declares
/// it: return codes, the handle and the structures ferry's NVML fills in,
/// with NVIDIA's layouts; every other type the API table names is declared
/// only as far as a prototype needs it (an incomplete struct behind a
/// pointer, an int for an enum passed by value), since those calls return
/// NVML_ERROR_NOT_SUPPORTED. Plain C, self-contained; the prototypes are
/// generated from libs/nvml/nvml.api into ferry/generated/NvmlApi.h.
#pragma once

#define NVML_API_VERSION 13
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80

typedef enum nvmlReturn_enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_DEPRECATED = 26,
  NVML_ERROR_NOT_READY = 27,
  NVML_ERROR_GPU_NOT_FOUND = 28,
  NVML_ERROR_INVALID_STATE = 29,
  NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct nvmlPciInfo_st {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;

/// Versioned structures carry sizeof | version << 24 in their first field.
#define NVML_STRUCT_VERSION(data, ver) (unsigned int)(sizeof(nvml##data##_v##ver##_t) | (ver << 24U))
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef struct nvmlUtilization_st {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

typedef struct nvmlProcessInfo_v1_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_st {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t, nvmlProcessInfo_t;

typedef enum nvmlClockType_enum {
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_CLOCK_VIDEO = 3
} nvmlClockType_t;

typedef enum nvmlBrandType_enum { NVML_BRAND_UNKNOWN = 0, NVML_BRAND_TESLA = 2, NVML_BRAND_NVIDIA = 14 } nvmlBrandType_t;
typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum nvmlEnableState_enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;
typedef enum nvmlPstates_enum { NVML_PSTATE_0 = 0, NVML_PSTATE_UNKNOWN = 32 } nvmlPstates_t;
typedef enum nvmlComputeMode_enum { NVML_COMPUTEMODE_DEFAULT = 0 } nvmlComputeMode_t;

/* Declared only as far as the prototypes need them. */
typedef struct nvmlAccountingStats_opaque nvmlAccountingStats_t;
typedef struct nvmlActiveVgpuInstanceInfo_opaque nvmlActiveVgpuInstanceInfo_t;
typedef unsigned int nvmlAffinityScope_t;
typedef struct nvmlBAR1Memory_opaque nvmlBAR1Memory_t;
typedef struct nvmlBridgeChipHierarchy_opaque nvmlBridgeChipHierarchy_t;
typedef unsigned int nvmlBusType_t;
typedef struct nvmlC2cModeInfo_v1_opaque nvmlC2cModeInfo_v1_t;
typedef struct nvmlClkMonStatus_opaque nvmlClkMonStatus_t;
typedef int nvmlClockId_t; /* an enum */
typedef struct nvmlClockOffset_opaque nvmlClockOffset_t;
typedef struct nvmlComputeInstanceInfo_opaque nvmlComputeInstanceInfo_t;
typedef struct nvmlComputeInstancePlacement_opaque nvmlComputeInstancePlacement_t;
typedef struct nvmlComputeInstanceProfileInfo_opaque nvmlComputeInstanceProfileInfo_t;
typedef struct nvmlComputeInstanceProfileInfo_v2_opaque nvmlComputeInstanceProfileInfo_v2_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct nvmlConfComputeGetKeyRotationThresholdInfo_opaque nvmlConfComputeGetKeyRotationThresholdInfo_t;
typedef struct nvmlConfComputeGpuAttestationReport_opaque nvmlConfComputeGpuAttestationReport_t;
typedef struct nvmlConfComputeGpuCertificate_opaque nvmlConfComputeGpuCertificate_t;
typedef struct nvmlConfComputeMemSizeInfo_opaque nvmlConfComputeMemSizeInfo_t;
typedef struct nvmlConfComputeSetKeyRotationThresholdInfo_opaque nvmlConfComputeSetKeyRotationThresholdInfo_t;
typedef struct nvmlConfComputeSystemCaps_opaque nvmlConfComputeSystemCaps_t;
typedef struct nvmlConfComputeSystemState_opaque nvmlConfComputeSystemState_t;
typedef struct nvmlCoolerInfo_opaque nvmlCoolerInfo_t;
typedef int nvmlDetachGpuState_t; /* an enum */
typedef struct nvmlDeviceAddressingMode_opaque nvmlDeviceAddressingMode_t;
typedef unsigned int nvmlDeviceArchitecture_t;
typedef struct nvmlDeviceAttributes_opaque nvmlDeviceAttributes_t;
typedef struct nvmlDeviceCapabilities_opaque nvmlDeviceCapabilities_t;
typedef struct nvmlDeviceCurrentClockFreqs_opaque nvmlDeviceCurrentClockFreqs_t;
typedef struct nvmlDevicePerfModes_opaque nvmlDevicePerfModes_t;
typedef struct nvmlDevicePowerMizerModes_v1_opaque nvmlDevicePowerMizerModes_v1_t;
typedef int nvmlDeviceVgpuCapability_t; /* an enum */
typedef struct nvmlDramEncryptionInfo_opaque nvmlDramEncryptionInfo_t;
typedef int nvmlDriverModel_t; /* an enum */
typedef int nvmlEccCounterType_t; /* an enum */
typedef struct nvmlEccErrorCounts_opaque nvmlEccErrorCounts_t;
typedef struct nvmlEccSramErrorStatus_opaque nvmlEccSramErrorStatus_t;
typedef struct nvmlEccSramUniqueUncorrectedErrorCounts_opaque nvmlEccSramUniqueUncorrectedErrorCounts_t;
typedef struct nvmlEncoderSessionInfo_opaque nvmlEncoderSessionInfo_t;
typedef int nvmlEncoderType_t; /* an enum */
typedef struct nvmlEventData_opaque nvmlEventData_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct nvmlExcludedDeviceInfo_opaque nvmlExcludedDeviceInfo_t;
typedef struct nvmlFBCSessionInfo_opaque nvmlFBCSessionInfo_t;
typedef struct nvmlFBCStats_opaque nvmlFBCStats_t;
typedef unsigned int nvmlFanControlPolicy_t;
typedef struct nvmlFanSpeedInfo_opaque nvmlFanSpeedInfo_t;
typedef struct nvmlFieldValue_opaque nvmlFieldValue_t;
typedef struct nvmlGpmMetricsGet_opaque nvmlGpmMetricsGet_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;
typedef struct nvmlGpmSupport_opaque nvmlGpmSupport_t;
typedef struct nvmlGpuDynamicPstatesInfo_opaque nvmlGpuDynamicPstatesInfo_t;
typedef struct nvmlGpuFabricInfoV_opaque nvmlGpuFabricInfoV_t;
typedef struct nvmlGpuFabricInfo_opaque nvmlGpuFabricInfo_t;
typedef struct nvmlGpuInstanceInfo_opaque nvmlGpuInstanceInfo_t;
typedef struct nvmlGpuInstancePlacement_opaque nvmlGpuInstancePlacement_t;
typedef struct nvmlGpuInstanceProfileInfo_opaque nvmlGpuInstanceProfileInfo_t;
typedef struct nvmlGpuInstanceProfileInfo_v2_opaque nvmlGpuInstanceProfileInfo_v2_t;
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef int nvmlGpuOperationMode_t; /* an enum */
typedef int nvmlGpuP2PCapsIndex_t; /* an enum */
typedef struct nvmlGpuP2PStatus_opaque nvmlGpuP2PStatus_t;
typedef struct nvmlGpuThermalSettings_opaque nvmlGpuThermalSettings_t;
typedef int nvmlGpuTopologyLevel_t; /* an enum */
typedef int nvmlGpuVirtualizationMode_t; /* an enum */
typedef struct nvmlGridLicensableFeatures_opaque nvmlGridLicensableFeatures_t;
typedef struct nvmlHostVgpuMode_opaque nvmlHostVgpuMode_t;
typedef struct nvmlHostname_v1_opaque nvmlHostname_v1_t;
typedef struct nvmlHwbcEntry_opaque nvmlHwbcEntry_t;
typedef int nvmlInforomObject_t; /* an enum */
typedef struct nvmlIntNvLinkDeviceType_opaque nvmlIntNvLinkDeviceType_t;
typedef int nvmlLedColor_t; /* an enum */
typedef struct nvmlLedState_opaque nvmlLedState_t;
typedef struct nvmlMarginTemperature_opaque nvmlMarginTemperature_t;
typedef int nvmlMemoryErrorType_t; /* an enum */
typedef int nvmlMemoryLocation_t; /* an enum */
typedef int nvmlNvLinkCapability_t; /* an enum */
typedef int nvmlNvLinkErrorCounter_t; /* an enum */
typedef struct nvmlNvLinkInfo_opaque nvmlNvLinkInfo_t;
typedef struct nvmlNvLinkPowerThres_opaque nvmlNvLinkPowerThres_t;
typedef struct nvmlNvLinkUtilizationControl_opaque nvmlNvLinkUtilizationControl_t;
typedef struct nvmlNvlinkGetBwMode_opaque nvmlNvlinkGetBwMode_t;
typedef struct nvmlNvlinkSetBwMode_opaque nvmlNvlinkSetBwMode_t;
typedef struct nvmlNvlinkSupportedBwModes_opaque nvmlNvlinkSupportedBwModes_t;
typedef struct nvmlPRMTLV_v1_opaque nvmlPRMTLV_v1_t;
typedef struct nvmlPSUInfo_opaque nvmlPSUInfo_t;
typedef int nvmlPageRetirementCause_t; /* an enum */
typedef struct nvmlPciInfoExt_opaque nvmlPciInfoExt_t;
typedef int nvmlPcieLinkState_t; /* an enum */
typedef int nvmlPcieUtilCounter_t; /* an enum */
typedef struct nvmlPdi_opaque nvmlPdi_t;
typedef int nvmlPerfPolicyType_t; /* an enum */
typedef struct nvmlPlatformInfo_opaque nvmlPlatformInfo_t;
typedef struct nvmlPowerSmoothingProfile_opaque nvmlPowerSmoothingProfile_t;
typedef struct nvmlPowerSmoothingState_opaque nvmlPowerSmoothingState_t;
typedef unsigned int nvmlPowerSource_t;
typedef struct nvmlPowerValue_v2_opaque nvmlPowerValue_v2_t;
typedef struct nvmlProcessDetailList_opaque nvmlProcessDetailList_t;
typedef struct nvmlProcessUtilizationSample_opaque nvmlProcessUtilizationSample_t;
typedef struct nvmlProcessesUtilizationInfo_opaque nvmlProcessesUtilizationInfo_t;
typedef struct nvmlRepairStatus_opaque nvmlRepairStatus_t;
typedef int nvmlRestrictedAPI_t; /* an enum */
typedef struct nvmlRowRemapperHistogramValues_opaque nvmlRowRemapperHistogramValues_t;
typedef struct nvmlSample_opaque nvmlSample_t;
typedef int nvmlSamplingType_t; /* an enum */
typedef struct nvmlSystemConfComputeSettings_opaque nvmlSystemConfComputeSettings_t;
typedef struct nvmlSystemDriverBranchInfo_opaque nvmlSystemDriverBranchInfo_t;
typedef struct nvmlSystemEventSetCreateRequest_opaque nvmlSystemEventSetCreateRequest_t;
typedef struct nvmlSystemEventSetFreeRequest_opaque nvmlSystemEventSetFreeRequest_t;
typedef struct nvmlSystemEventSetWaitRequest_opaque nvmlSystemEventSetWaitRequest_t;
typedef struct nvmlSystemRegisterEventRequest_opaque nvmlSystemRegisterEventRequest_t;
typedef int nvmlTemperatureThresholds_t; /* an enum */
typedef struct nvmlTemperature_opaque nvmlTemperature_t;
typedef struct nvmlUUID_opaque nvmlUUID_t;
typedef struct nvmlUnitFanSpeeds_opaque nvmlUnitFanSpeeds_t;
typedef struct nvmlUnitInfo_opaque nvmlUnitInfo_t;
typedef struct nvmlUnit_st *nvmlUnit_t;
typedef struct nvmlValueType_opaque nvmlValueType_t;
typedef int nvmlVgpuCapability_t; /* an enum */
typedef struct nvmlVgpuCreatablePlacementInfo_opaque nvmlVgpuCreatablePlacementInfo_t;
typedef int nvmlVgpuDriverCapability_t; /* an enum */
typedef struct nvmlVgpuHeterogeneousMode_opaque nvmlVgpuHeterogeneousMode_t;
typedef struct nvmlVgpuInstanceUtilizationSample_opaque nvmlVgpuInstanceUtilizationSample_t;
typedef unsigned int nvmlVgpuInstance_t;
typedef struct nvmlVgpuInstancesUtilizationInfo_opaque nvmlVgpuInstancesUtilizationInfo_t;
typedef struct nvmlVgpuLicenseInfo_opaque nvmlVgpuLicenseInfo_t;
typedef struct nvmlVgpuMetadata_opaque nvmlVgpuMetadata_t;
typedef struct nvmlVgpuPgpuCompatibility_opaque nvmlVgpuPgpuCompatibility_t;
typedef struct nvmlVgpuPgpuMetadata_opaque nvmlVgpuPgpuMetadata_t;
typedef struct nvmlVgpuPlacementId_opaque nvmlVgpuPlacementId_t;
typedef struct nvmlVgpuPlacementList_opaque nvmlVgpuPlacementList_t;
typedef struct nvmlVgpuProcessUtilizationSample_opaque nvmlVgpuProcessUtilizationSample_t;
typedef struct nvmlVgpuProcessesUtilizationInfo_opaque nvmlVgpuProcessesUtilizationInfo_t;
typedef struct nvmlVgpuRuntimeState_opaque nvmlVgpuRuntimeState_t;
typedef struct nvmlVgpuSchedulerCapabilities_opaque nvmlVgpuSchedulerCapabilities_t;
typedef struct nvmlVgpuSchedulerGetState_opaque nvmlVgpuSchedulerGetState_t;
typedef struct nvmlVgpuSchedulerLogInfo_opaque nvmlVgpuSchedulerLogInfo_t;
typedef struct nvmlVgpuSchedulerLog_opaque nvmlVgpuSchedulerLog_t;
typedef struct nvmlVgpuSchedulerSetState_opaque nvmlVgpuSchedulerSetState_t;
typedef struct nvmlVgpuSchedulerStateInfo_opaque nvmlVgpuSchedulerStateInfo_t;
typedef struct nvmlVgpuSchedulerState_opaque nvmlVgpuSchedulerState_t;
typedef struct nvmlVgpuTypeBar1Info_opaque nvmlVgpuTypeBar1Info_t;
typedef struct nvmlVgpuTypeIdInfo_opaque nvmlVgpuTypeIdInfo_t;
typedef unsigned int nvmlVgpuTypeId_t;
typedef struct nvmlVgpuTypeMaxInstance_opaque nvmlVgpuTypeMaxInstance_t;
typedef struct nvmlVgpuVersion_opaque nvmlVgpuVersion_t;
typedef struct nvmlVgpuVmIdType_opaque nvmlVgpuVmIdType_t;
typedef struct nvmlViolationTime_opaque nvmlViolationTime_t;
typedef struct nvmlWorkloadPowerProfileCurrentProfiles_opaque nvmlWorkloadPowerProfileCurrentProfiles_t;
typedef struct nvmlWorkloadPowerProfileProfilesInfo_opaque nvmlWorkloadPowerProfileProfilesInfo_t;
typedef struct nvmlWorkloadPowerProfileRequestedProfiles_opaque nvmlWorkloadPowerProfileRequestedProfiles_t;
